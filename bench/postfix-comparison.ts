/**
 * The Postfix references of `npm run bench:e2e -- --against postfix|postfix-dkim`
 * (bench/e2e.ts): the runs before each Mailroom round, and the pairs printed.
 * `postfix`: Debian's Postfix relaying unsigned, at the bench's connections.
 * `postfix-dkim`: that, and Postfix with OpenDKIM signing every message at 16
 * and at 64 connections, the better of the two taken (what a self-hosting
 * sender runs instead of Mailroom, which signs every copy).
 */
import { machineFacts } from "./machine-facts";
import { postfixMissing, runPostfixRound, type PostfixFigures } from "./postfix-reference";
import { describeCounts, type SystemCounts } from "./work-counts";

export type Against = "postfix" | "postfix-dkim";

export interface ReferenceRound {
  plain: PostfixFigures;
  /** The better of 16 and 64 connections (postfix-dkim only). */
  signed?: PostfixFigures;
}

export interface MailroomRound {
  delivered: number;
  deliveredPerSecondWholeRun: number;
  cpuMsPerMessageTotal: number;
  post: { p99: number };
  work: SystemCounts | { unavailable: string };
}

export function parseAgainst(value: string | undefined): Against | undefined {
  if (value === undefined) return undefined;
  if (value === "postfix" || value === "postfix-dkim") return value;
  throw new Error(`--against: postfix or postfix-dkim, not ${value}`);
}

export const referenceMissing = (against: Against): string | undefined => postfixMissing(against === "postfix-dkim");

export function describePostfix(p: PostfixFigures): string {
  const c = p.cpuMsPerMessage;
  const dkim = p.dkim ? `, OpenDKIM ${c.opendkim.toFixed(2)}` : "";
  return `${p.dkim ? "signed" : "plain"}, ${p.connections} connections: ${p.delivered} delivered in ${p.seconds.toFixed(1)} s = ${p.deliveredPerSecond.toFixed(0)}/s (smtp-source done at ${p.acceptedPerSecond.toFixed(0)}/s); CPU ms/message Postfix ${c.postfix.toFixed(2)}${dkim}, smtp-source ${c.smtpSource.toFixed(2)}, smtp-sink ${c.smtpSink.toFixed(2)}; total ${c.total.toFixed(2)}
  work: ${describeCounts(p.work, p.delivered)}; page faults/message Postfix ${p.pageFaultsPerMessage.postfix.toFixed(1)}${p.dkim ? `, OpenDKIM ${p.pageFaultsPerMessage.opendkim.toFixed(1)}` : ""}`;
}

/** One round of the reference, each run printed as it ends. */
export async function runReferenceRound(against: Against, round: number, messages: number, connections: number): Promise<ReferenceRound> {
  const runOne = async (c: number, dkim: boolean) => {
    const f = await runPostfixRound({ messages, connections: c, payloadBytes: 2048, warmupMessages: 500, dkim });
    console.log(`\npostfix round ${round}: ${describePostfix(f)}`);
    return f;
  };
  const plain = await runOne(connections, false);
  if (against === "postfix") return { plain };
  const [at16, at64] = [await runOne(16, true), await runOne(64, true)];
  return { plain, signed: at16.deliveredPerSecond >= at64.deliveredPerSecond ? at16 : at64 };
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** Each pair, then the headline: the mean of Mailroom's rates over the mean of each reference's, with the machine's facts. */
export function printComparison(rounds: { reference: ReferenceRound; mailroom: MailroomRound }[]): void {
  const ratio = (m: MailroomRound, p: PostfixFigures) => `${(m.deliveredPerSecondWholeRun / p.deliveredPerSecond).toFixed(2)}×`;
  const cell = (p: PostfixFigures) => `${p.deliveredPerSecond.toFixed(0)}/s at ${p.cpuMsPerMessage.total.toFixed(2)} CPU ms/msg`;
  const lines = rounds.map(({ reference: r, mailroom: m }, i) => {
    const signed = r.signed ? ` | Postfix + OpenDKIM (${r.signed.connections} conns) ${cell(r.signed)} | ${ratio(m, r.signed)} signed` : "";
    return `  round ${i + 1}  Postfix ${cell(r.plain)} | Mailroom ${m.deliveredPerSecondWholeRun.toFixed(0)}/s at ${m.cpuMsPerMessageTotal.toFixed(2)} CPU ms/msg (POST p99 ${m.post.p99.toFixed(1)} ms) | ${ratio(m, r.plain)} plain${signed}`;
  });
  const mailroomRate = mean(rounds.map((r) => r.mailroom.deliveredPerSecondWholeRun));
  const mailroomCpu = mean(rounds.map((r) => r.mailroom.cpuMsPerMessageTotal));
  const headline = (name: string, figures: PostfixFigures[]) => {
    const rate = mean(figures.map((p) => p.deliveredPerSecond));
    const cpu = mean(figures.map((p) => p.cpuMsPerMessage.total));
    return `  Mailroom delivers ${(mailroomRate / rate).toFixed(2)}× ${name}'s rate: ${mailroomRate.toFixed(0)}/s at ${mailroomCpu.toFixed(2)} CPU ms/msg against ${rate.toFixed(0)}/s at ${cpu.toFixed(2)} (means of ${figures.length} rounds)`;
  };
  const signed = rounds.flatMap((r) => (r.reference.signed ? [r.reference.signed] : []));
  const work = rounds.map(({ reference: r, mailroom: m }, i) => {
    const ref = r.signed ?? r.plain;
    return `  round ${i + 1}  work per message: Mailroom ${describeCounts(m.work, m.delivered)} | ${ref.dkim ? "Postfix + OpenDKIM" : "Postfix"} ${describeCounts(ref.work, ref.delivered)}`;
  });
  console.log(`
against Postfix (interleaved, all processes' CPU: Postfix's tree + OpenDKIM + smtp-source + smtp-sink | app + workers + PostgreSQL + sink + load)
${lines.join("\n")}
${work.join("\n")}
${headline("Postfix", rounds.map((r) => r.reference.plain))}${signed.length ? `\n${headline("Postfix + OpenDKIM", signed)}` : ""}
  ${machineFacts()}`);
}
