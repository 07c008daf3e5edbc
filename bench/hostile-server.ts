/**
 * Child process of bench/hostile.ts: the Mailroom server (API, inbound SMTP,
 * workers inline, so its process tree is every process that works) with two
 * accounts. The attacker's domain `in.example.com` routes to BENCH_RECEIVER_URL
 * and it holds a template; the other tenant's domain `other.example.com`
 * routes there too, and it sends ordinary mail. Sender authentication asks a
 * resolver that knows no name (no internet DNS in a benchmark): the work it
 * measures is hashing and parsing, which happen whatever DNS answers.
 * Sends {type:"ready", ...}; answers {type:"stored"} with the inbound tables'
 * bytes, {type:"loop-reset"} and {type:"loop"} with the event loop's delay
 * since the reset (p99 and max, ms), and {type:"stop"}.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createAccount } from "../lib/domain/accounts/accounts";
import { createApiKey } from "../lib/domain/accounts/api-keys";
import { createInboundRoute } from "../lib/domain/inbound/routes";
import { createTemplate } from "../lib/domain/templates/templates";
import { getInboundAddress } from "../lib/inbound/inbound-server";
import { startBenchServer } from "./inbound-rig";

const send = (msg: unknown) => process.send!(msg);

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-bench-hostile-"));
  // The per-account line of the sending routes (docs/adr/0133) as the environment sets it, else its defaults.
  const server = await startBenchServer(dataDir, {
    MAILROOM_API_SENDS_PER_ACCOUNT: process.env.MAILROOM_API_SENDS_PER_ACCOUNT,
    MAILROOM_API_SENDS_WAITING_PER_ACCOUNT: process.env.MAILROOM_API_SENDS_WAITING_PER_ACCOUNT,
  });
  // The event loop's delay over a burst: how much of the other tenant's wait is this process's loop.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const db = server.ctx.database;
  const attacker = await createAccount(db, { name: "Attacker", plan: "unlimited", domain: "in.example.com", verified: true });
  const other = await createAccount(db, { name: "Other", plan: "unlimited", domain: "other.example.com", verified: true });
  const receiver = process.env.BENCH_RECEIVER_URL!;
  await createInboundRoute(db, attacker.accountId, { match: "*@in.example.com", webhookUrl: receiver }, async () => {});
  await createInboundRoute(db, other.accountId, { match: "*@other.example.com", webhookUrl: receiver }, async () => {});
  // Five nested sections over a 30-item list: 30^5 steps if nothing stops it.
  const nested = "{{#l}}{{#l}}{{#l}}{{#l}}{{#l}}x{{/l}}{{/l}}{{/l}}{{/l}}{{/l}}";
  const template = await createTemplate(db, attacker.accountId, { Name: "hostile", Subject: "Hi", HTMLContent: `<p>${nested}</p>` });
  if (!template.ok) throw new Error(`template refused: ${JSON.stringify(template)}`);
  const sendKey = await createApiKey(db, attacker.accountId, "send", { scope: "send" });
  process.on("message", async (msg: { type: string }) => {
    if (msg.type === "stored") {
      const { rows } = await db.pool.query<{ bytes: string; rows: string }>(
        `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::text AS bytes,
                (SELECT count(*) FROM inbound_messages)::text AS rows
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname LIKE 'inbound%'`,
      );
      send({ type: "stored", bytes: Number(rows[0]!.bytes), rows: Number(rows[0]!.rows) });
      return;
    }
    if (msg.type === "loop-reset") {
      loopDelay.reset();
      send({ type: "loop-reset" });
      return;
    }
    if (msg.type === "loop") {
      send({ type: "loop", p99Ms: loopDelay.percentile(99) / 1e6, maxMs: loopDelay.max / 1e6 });
      return;
    }
    if (msg.type === "stop") {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }
  });
  const inbound = getInboundAddress(server.ctx)!;
  send({
    type: "ready",
    host: inbound.host,
    port: inbound.port,
    api: server.url,
    attackerKey: sendKey.apiKey,
    templateId: template.saved.TemplateID,
    otherKey: other.apiKey,
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
