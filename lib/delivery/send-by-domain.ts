import { classifySmtpAnswer, internalErrorClassification, type Classification, type SmtpAnswer } from "./classify";
import type { RecipientRow } from "./load-messages";
import type { Envelope, Transport, TransportResult } from "./transports";
import { wasUntried } from "./untried-retry";

/**
 * Sends one message's copies, a recipient domain at a time and a few copies
 * at a time: a 10 MB message to 25 recipients must not hold 25 copies in
 * memory at once, and MX delivery never mixes domains. Every recipient ends
 * with a classification: a copy that cannot be built (a defect, a signing
 * key that does not parse...) or a transport that throws is an internal
 * error of that recipient's round, deferred on the normal retry schedule and
 * then failed with the reason like any other temporary failure (never a job
 * that throws until pg-boss gives up and the recipient stays queued for ever).
 */

/** Copies of one message built and handed to the transport together. */
const COPIES_IN_FLIGHT = 5;

export interface SentCopies {
  classifications: Classification[];
  answers: (TransportResult | undefined)[];
  /** Bytes of the first copy built (messages.size), 0 when none was. */
  size: number;
}

export interface SendOptions {
  recipients: RecipientRow[];
  build: (recipient: RecipientRow) => Promise<Envelope>;
  transport: Transport;
  /** Called once, with the first copy's size, before that copy is sent. */
  beforeFirstSend?: (size: number) => Promise<void>;
  /** Reports an internal error of one recipient (logged by the caller). */
  onInternalError: (recipient: RecipientRow, err: unknown, where: string) => void;
}

export async function sendByDomain({ recipients, build, transport, beforeFirstSend, onInternalError }: SendOptions): Promise<SentCopies> {
  const classifications: Classification[] = new Array(recipients.length);
  const answers: (TransportResult | undefined)[] = new Array(recipients.length);
  const internal = (i: number, err: unknown, where: string) => {
    onInternalError(recipients[i]!, err, where);
    classifications[i] = internalErrorClassification(err);
  };
  let size = 0;
  for (const [domain, indexes] of groupByDomain(recipients)) {
    // A copy to this domain that ran out of time (a tarpit, docs/adr/0321): the rest of its copies in this
    // round are deferred untried, so that the round is recorded now rather than after one more limit per chunk.
    let timedOut: string | undefined;
    for (let k = 0; k < indexes.length; k += COPIES_IN_FLIGHT) {
      const chunk = indexes.slice(k, k + COPIES_IN_FLIGHT);
      if (timedOut) {
        const skipped = classifyCopy({ errorCode: "ESKIPPED", response: `Not tried: an earlier copy to ${domain} in this round timed out: ${timedOut}`, enhancedCode: "4.4.2" });
        for (const i of chunk) classifications[i] = skipped;
        continue;
      }
      const built = await Promise.all(
        chunk.map((i) =>
          build(recipients[i]!).then(
            (envelope) => ({ i, envelope }),
            (err: unknown) => internal(i, err, "building the copy"),
          ),
        ),
      );
      const ready = built.filter((b): b is { i: number; envelope: Envelope } => b !== undefined);
      if (ready.length === 0) continue;
      if (!size) {
        size = ready[0]!.envelope.raw.length;
        await beforeFirstSend?.(size);
      }
      try {
        const out = await transport.sendAll(domain, ready.map((b) => b.envelope));
        ready.forEach((b, n) => {
          answers[b.i] = out[n]!;
          classifications[b.i] = classifyCopy(out[n]!.answer);
          if (out[n]!.answer.errorCode === "ETIMEDOUT") timedOut ??= classifications[b.i]!.diagnostic;
        });
      } catch (err) {
        for (const b of ready) internal(b.i, err, "the transport");
      }
    }
  }
  return { classifications, answers, size };
}

/** The answer's classification; a copy that was not tried is marked so (retried soon, no attempt spent: untried-retry.ts). */
function classifyCopy(answer: SmtpAnswer): Classification {
  const c = classifySmtpAnswer(answer);
  return c.outcome === "deferred" && wasUntried(answer.errorCode) ? { ...c, untried: true } : c;
}

/** Recipient indexes by domain, in first-seen order. A job's entry is one domain already; grouped anyway so that MX delivery never mixes them. */
function groupByDomain(recipients: RecipientRow[]): Map<string, number[]> {
  const byDomain = new Map<string, number[]>();
  recipients.forEach((r, i) => {
    const domain = r.email.split("@").pop()!.toLowerCase();
    const list = byDomain.get(domain);
    if (list) list.push(i);
    else byDomain.set(domain, [i]);
  });
  return byDomain;
}
