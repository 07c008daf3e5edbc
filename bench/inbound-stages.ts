/**
 * `npm run bench:inbound-stages`: the CPU of each stage of posting one
 * inbound message, alone, in this process (no PostgreSQL, no SMTP): the
 * 10 KB message of bench/inbound.ts parsed (mailparser), authenticated
 * (mailauth, DNS answering "none" at once), its JSON built, signed, and
 * POSTed over loopback to a receiver in this process that parses it (both
 * ends counted). BENCH_MESSAGES per stage (default 3000) after a warm-up of
 * 300. The sum is the least a post can cost beside its statements: the floor
 * under `npm run bench:inbound`'s CPU per message received and posted.
 */
import http from "node:http";
import { simpleParser } from "mailparser";
import { buildInboundPayload, payloadJsonBytes } from "../lib/domain/inbound/payload";
import { authenticationOf } from "../lib/domain/inbound/authentication";
import { createAgents, postJson } from "../lib/webhooks/http-post";
import { signInboundPost } from "../lib/webhooks/inbound-post";

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 3000);
const text = "Hello from the Mailroom inbound benchmark; this line pads the body.\n".repeat(150).slice(0, 10_000);
const date = new Date().toUTCString().replace("GMT", "+0000");
const raw = Buffer.from(
  `From: Load <load@sender.example>\r\nTo: bench@in.example.com\r\nSubject: bench-1\r\nDate: ${date}\r\nMessage-ID: <bench-1@sender.example>\r\n` +
    `MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${text.replaceAll("\n", "\r\n")}`,
);
const noDns = async (name: string) => {
  throw Object.assign(new Error(`no record for ${name}`), { code: "ENOTFOUND" });
};
const envelope = { mailFrom: "load@sender.example", remoteIp: "127.0.0.1", helo: "sender.example" };
const input = {
  id: "00000000-0000-4000-8000-000000000001",
  accountId: "00000000-0000-4000-8000-000000000002",
  raw,
  originalRecipient: "bench@in.example.com",
  mailboxHash: "",
  envelope,
  inlineBytes: 10 * 1024 * 1024,
  downloadUrl: () => "",
  findReplied: async () => undefined,
  resolver: noDns as never,
  mta: "mx.bench.example",
};

/** CPU µs per call of `f` (user + system, this process's threads: the garbage collector's included). */
async function cpuPerCall(f: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 300; i++) await f();
  const start = process.cpuUsage();
  for (let i = 0; i < MESSAGES; i++) await f();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / MESSAGES;
}

async function main() {
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      JSON.parse(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
  const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/inbound`;
  const agents = createAgents(16);
  const body = await payloadJsonBytes(await buildInboundPayload(input));
  const signingKey = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const options = { skipImageLinks: true, skipTextLinks: true, skipTextToHtml: true, skipHtmlToText: true };
  const stages: [string, () => Promise<unknown>][] = [
    ["parse (mailparser)", () => simpleParser(raw, options)],
    ["authenticate (mailauth)", () => authenticationOf(input)],
    ["payload and its JSON (all of the above)", async () => payloadJsonBytes(await buildInboundPayload(input))],
    ["sign", () => signInboundPost(signingKey, input.id, body)],
    ["POST, both ends", () => postJson(url, body, { "content-type": "application/json" }, { timeoutMs: 10_000, allowPrivate: true, agents })],
  ];
  console.log(`bench:inbound-stages: a ${raw.length}-byte message, its JSON ${body.length} bytes, ${MESSAGES} calls per stage`);
  const figures: Record<string, number> = {};
  for (const [name, f] of stages) {
    figures[name] = Math.round(await cpuPerCall(f));
    console.log(`  ${name.padEnd(42)} ${String(figures[name]).padStart(6)} µs CPU`);
  }
  const floor = figures["payload and its JSON (all of the above)"]! + figures["sign"]! + figures["POST, both ends"]!;
  console.log(`  ${"a post beside its statements".padEnd(42)} ${String(floor).padStart(6)} µs CPU`);
  if (process.env.BENCH_JSON) console.log(JSON.stringify({ ...figures, floor }));
  agents.http.destroy();
  receiver.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
