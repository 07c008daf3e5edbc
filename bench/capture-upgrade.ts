/**
 * `npm run bench:capture-upgrade`: the upgrade in place of the sandbox
 * captures and the received inbound mail to day partitions (docs/adr/0040,
 * 0041; docs/BENCHMARKS.md "Sandbox and inbound upgrade").
 *
 * Starts an embedded PostgreSQL in a temp dir (or a fresh database on
 * BENCH_DATABASE_URL's server), migrates it to the schema before 0970, loads
 * BENCH_ROWS (default 200,000) captures and as many inbound messages (with
 * an attempt each) of BENCH_RAW_BYTES (default 4,096) over 7 days, then
 * applies 0970 to 0982 one by one, timing each, while a writer stores one
 * capture and one inbound message every 10 ms the way the sandbox MX and the
 * inbound group commit do, and records the longest of those writes.
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import { insertInboundMessages } from "../lib/storage/inbound-rows";
import { migrate } from "../lib/storage/migrate";
import { insertSandboxCaptures } from "../lib/storage/sandbox-rows";
import { openBenchDatabase } from "./bench-database";

const ROWS = Number(process.env.BENCH_ROWS ?? 200_000);
const RAW_BYTES = Number(process.env.BENCH_RAW_BYTES ?? 4096);
const STEPS = ["0971", "0972", "0973", "0981", "0982", "0983"];

async function main() {
  const bench = await openBenchDatabase("capture-upgrade", { max: 4 });
  const { database } = bench;
  const pool = database.pool;
  try {
    await migrate(pool, { before: "0970" });
    const accountId = (await pool.query<{ id: string }>("INSERT INTO accounts (name, plan, webhook_signing_key) VALUES ('bench', 'unlimited', 'k') RETURNING id")).rows[0]!.id;
    const routeId = Number(
      (await pool.query<{ id: string }>("INSERT INTO inbound_routes (account_id, match, webhook_url) VALUES ($1, '*@bench.test', 'http://127.0.0.1:9/') RETURNING id", [accountId])).rows[0]!.id,
    );
    const now = Math.floor(Date.now() / 1000);
    const t0 = Date.now();
    await pool.query(
      `INSERT INTO sandbox_messages (received_at, mail_from, rcpt_to, subject, size, raw, account_id)
       SELECT to_timestamp($1 - (g::bigint * 2654435761) % (7 * 86400)), 'bounces@bench.test', ARRAY['r@example.net'], 'bench', $3, convert_to(repeat('x', $3), 'UTF8'), $4
         FROM generate_series(1, $2::int) g`,
      [now, ROWS, RAW_BYTES, accountId],
    );
    await pool.query(
      `INSERT INTO inbound_messages (id, account_id, route_id, webhook_url, original_recipient, size, raw, received_at, expires_at, status, attempts)
       SELECT gen_random_uuid(), $4, $5, 'http://127.0.0.1:9/', 'in@bench.test', $3, convert_to(repeat('x', $3), 'UTF8'),
              to_timestamp($1 - (g::bigint * 2654435761) % (7 * 86400)), to_timestamp($1 + 86400), 'delivered', 1
         FROM generate_series(1, $2::int) g`,
      [now, ROWS, RAW_BYTES, accountId, routeId],
    );
    await pool.query("INSERT INTO inbound_attempts (inbound_message_id, attempted_at, status_code) SELECT id, received_at, 200 FROM inbound_messages");
    await pool.query("VACUUM ANALYZE sandbox_messages, inbound_messages, inbound_attempts");
    const fmt = (n: number) => n.toLocaleString("en-US");
    console.log(`loaded ${fmt(ROWS)} captures and ${fmt(ROWS)} inbound messages of ${fmt(RAW_BYTES)} bytes in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    let writing = true;
    let longest = 0;
    let writes = 0;
    const raw = Buffer.alloc(RAW_BYTES, "y");
    const writer = (async () => {
      while (writing) {
        const s = performance.now();
        await insertSandboxCaptures(database, [
          { mail_from: "w@bench.test", rcpt_to: ["r@example.net"], subject: "w", message_id_header: "", recipient_id: 0, size: RAW_BYTES, raw: raw.toString("base64") },
        ]);
        const receivedAt = new Date();
        await insertInboundMessages(database, [
          { id: randomUUID(), accountId, routeId, webhookUrl: "http://127.0.0.1:9/", originalRecipient: "in@bench.test", mailboxHash: "", recipients: [{ Email: "in@bench.test", MailboxHash: "" }], mailFrom: "", remoteIp: "", helo: "", size: raw.length, raw, receivedAt, expiresAt: new Date(receivedAt.getTime() + 86_400_000) },
        ]);
        longest = Math.max(longest, performance.now() - s);
        writes++;
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await new Promise((r) => setTimeout(r, 1000));
    const lines: string[] = [];
    for (const step of STEPS) {
      longest = 0;
      const s = performance.now();
      const applied = await migrate(pool, { before: step });
      lines.push(`${applied.join(", ")}: ${(performance.now() - s).toFixed(0)} ms, longest write meanwhile ${longest.toFixed(0)} ms`);
    }
    writing = false;
    await writer;
    for (const l of lines) console.log(l);
    const count = async (table: string) => (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
    console.log(`after: ${fmt(await count("sandbox_messages"))} captures, ${fmt(await count("inbound_messages"))} inbound messages (${fmt(ROWS)} loaded + ${writes} written during the upgrade, each)`);
    console.log(`machine load average ${os.loadavg()[0]!.toFixed(1)} (2 cores)`);
  } finally {
    await bench.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
