/**
 * Child process of bench/api.ts: the Mailroom server (API only, no
 * dashboard, workers off) with an `unlimited` account and preloaded events.
 * Talks to its parent over IPC: sends {type:"ready", ...}, answers
 * {type:"rss"} and {type:"stop"}. With BENCH_READ_DATABASE_URL the event
 * reads go to that replica (bench/read-replica.ts), and {type:"ryw"} measures
 * how long an account's reads stay on the primary after a send.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildConfig } from "../lib/config";
import { createAccount } from "../lib/domain/accounts/accounts";
import { rollupEventCounts } from "../lib/domain/events/event-counts";
import { dropRecipientsDay } from "../lib/domain/partitions/recipient-partitions";
import { dropDayPartition, ensureDayPartitions, listDayPartitions } from "../lib/storage/day-partitions";
import { DAY, dropEventPartition, ensureEventPartitions, listEventPartitions } from "../lib/storage/event-partitions";
import { startServer } from "../server";

const send = (msg: unknown) => process.send!(msg);

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-bench-"));
  const config = buildConfig({
    NODE_ENV: "production",
    MAILROOM_DATA_DIR: dataDir,
    ...(process.env.BENCH_DATABASE_URL && { DATABASE_URL: process.env.BENCH_DATABASE_URL }),
    ...(process.env.BENCH_READ_DATABASE_URL && { MAILROOM_READ_DATABASE_URL: process.env.BENCH_READ_DATABASE_URL }),
    MAILROOM_EMBEDDED_PG_PORT: "0",
    PORT: "0",
    MAILROOM_WORKERS: "off",
    // Nothing delivers here: the API is measured alone, past any delivery backlog (docs/contract.md §18).
    MAILROOM_MAX_BACKLOG: "0",
    MAILROOM_INBOUND_PORT: "0",
    MAILROOM_SUBMISSION_PORT: "0",
    MAILROOM_SUBMISSION_TLS_PORT: "0",
    MAILROOM_SANDBOX_PORT: "0",
    MAILROOM_QUIET_START: "true",
    // The loader's statements insert millions of rows each.
    MAILROOM_DB_QUERY_TIMEOUT: "0",
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "error",
    // GET /events is measured past the per-key request rate (100/s); the limiter's own cost stays in the path.
    MAILROOM_API_REQUEST_RATE: "1000000",
    MAILROOM_API_REQUEST_BURST: "1000000",
  });
  const server = await startServer({ config, dashboard: false });
  const { pool } = server.ctx.database;
  const account = await createAccount(server.ctx.database, { name: "Bench", plan: "unlimited", domain: "example.com", verified: true });

  const events = Number(process.env.BENCH_EVENTS ?? 100_000);
  const perMessage = 5;
  const now = Math.floor(Date.now() / 1000);
  const headers = JSON.stringify({ MessageId: "", From: [["Ann", "ann@example.com"]], ReplyTo: [], To: [["", "r@example.net"]], Cc: [], Bcc: [], Subject: "Preloaded" });
  // The day partitions of the 30 days loaded (the server made only the last two and the days ahead), as a live installation has them.
  // BENCH_DAYS (default 30): the span loaded; 100 million events over 30 days is 3.3 million a day, which
  // BENCH_EVENTS=10000000 BENCH_DAYS=3 reproduces per hour in a tenth of the load time.
  const days = Number(process.env.BENCH_DAYS ?? 30);
  // Each message's last event comes 2 h after it: the messages end 2 h before now, so that no event is dated
  // in the future (a live log has none, and the count reads every row past the hourly summaries).
  const lastEventAfter = 7200;
  const base = now - lastEventAfter;
  await ensureEventPartitions(server.ctx.database, base - (days + 1) * DAY, now + DAY);
  await ensureDayPartitions(server.ctx.database, "messages", base - (days + 1) * DAY, now + DAY);
  const loadStarted = Date.now();
  // Day by day, oldest first, each day's messages spread over it and their events (accepted, delivered,
  // opened, clicked, failed) seconds to hours after them, inserted in time order: every index grows at its
  // right edge, as a live installation's do (a random order into 30 partitions at once was ~25 min per
  // 10 million events here, most of it index pages read back from disk).
  const messages = Math.ceil(events / perMessage);
  // About 20 messages per recipient over the span, and a numbered subject each, for GET /events'
  // Recipient and Subject (docs/adr/0051): r<n>@example.net, "Your order #<n>".
  const recipients = Math.max(1, Math.floor(messages / 20));
  for (let day = days; day >= 1; day--) {
    const first = Math.floor(((days - day) * messages) / days);
    const count = Math.floor(((days - day + 1) * messages) / days) - first;
    if (count <= 0) continue;
    await pool.query(
      `WITH m AS (
         INSERT INTO messages (id, account_id, from_email, from_domain, subject, headers, content, size, created_at)
         SELECT gen_random_uuid(), $1, 'ann@example.com', 'example.com', 'Your order #' || ($5::int + g), $2::jsonb, '{}'::jsonb, 3000,
                to_timestamp($3::bigint + (g * 86400.0 / $4::int))
           FROM generate_series(0, $4::int - 1) g
         RETURNING id, created_at, subject)
       INSERT INTO events (account_id, message_id, type, logged_at, log_level, recipient)
       SELECT $1, m.id, (ARRAY['accepted','delivered','opened','clicked','failed'])[k],
              extract(epoch FROM m.created_at)::bigint + (ARRAY[0, 2, 3600, 7200, 5])[k], 'info',
              'r' || (substring(m.subject FROM 13)::int % $6::int) || '@example.net'
         FROM m CROSS JOIN generate_series(1, ${perMessage}) k
        ORDER BY 4`,
      [account.accountId, headers, base - day * DAY, count, first, recipients],
    );
    if (process.env.BENCH_LOAD_PROGRESS) console.error(`loaded day -${day}: ${count * perMessage} events, ${((Date.now() - loadStarted) / 1000).toFixed(0)} s`);
  }
  // The big account's 99 neighbours (a shared instance): small accounts whose events sit in the same day
  // partitions, so every read must find the big account's rows among others' (BENCH_NEIGHBOURS, default 99).
  const neighbours = Number(process.env.BENCH_NEIGHBOURS ?? 99);
  const neighbourMessages = 200;
  for (let n = 0; n < neighbours; n++) {
    const small = await createAccount(server.ctx.database, { name: `Neighbour ${n + 1}`, plan: "starter", domain: `n${n + 1}.example.org`, verified: true });
    await pool.query(
      `WITH m AS (
         INSERT INTO messages (id, account_id, from_email, from_domain, subject, headers, content, size, created_at)
         SELECT gen_random_uuid(), $1, 'ann@' || $4, $4, 'Neighbour', $2::jsonb, '{}'::jsonb, 3000,
                to_timestamp($3::bigint + (g * ${days} * 86400.0 / ${neighbourMessages}))
           FROM generate_series(0, ${neighbourMessages - 1}) g
         RETURNING id, created_at)
       INSERT INTO events (account_id, message_id, type, logged_at, log_level, recipient)
       SELECT $1, m.id, (ARRAY['accepted','delivered','opened','clicked','failed'])[k],
              extract(epoch FROM m.created_at)::bigint + (ARRAY[0, 2, 3600, 7200, 5])[k], 'info', 'r@example.net'
         FROM m CROSS JOIN generate_series(1, ${perMessage}) k`,
      [small.accountId, headers, base - days * DAY, `n${n + 1}.example.org`],
    );
  }
  const loadSeconds = (Date.now() - loadStarted) / 1000;
  await pool.query("VACUUM ANALYZE events");
  await pool.query("VACUUM ANALYZE messages");
  const { rows: size } = await pool.query<{ bytes: number }>(
    "SELECT sum(pg_total_relation_size(inhrelid))::bigint AS bytes FROM pg_inherits WHERE inhparent = 'events'::regclass",
  );
  // Steady state: the hourly summaries of the preloaded past exist and autovacuum has seen them.
  await rollupEventCounts(server.ctx.database, account.accountId);
  await pool.query("VACUUM ANALYZE event_hour_counts");
  const { rows } = await pool.query<{ id: string; n: number }>(
    "SELECT m.id, (SELECT count(*)::int FROM events) AS n FROM messages m WHERE account_id = $1 LIMIT 1",
    [account.accountId],
  );

  process.on("message", async (msg: { type: string }) => {
    if (msg.type === "rss") send({ type: "rss", rss: process.memoryUsage().rss });
    if (msg.type === "cpu") {
      const u = process.cpuUsage();
      send({ type: "cpu", micros: u.user + u.system });
    }
    if (msg.type === "replica") send({ type: "replica", health: await server.ctx.reads.check() });
    if (msg.type === "ryw") send({ type: "ryw", windows: await readYourWritesWindows(server, account.apiKey, account.accountId) });
    if (msg.type === "drop-oldest-day") {
      // Retention of one day: the oldest day partition detached and dropped (lib/domain/partitions/event-partitions.ts).
      // The oldest day partition that holds events (the first one made may be empty).
      let oldest = { name: "", rows: 0 };
      for (const p of (await listEventPartitions(server.ctx.database)).filter((p) => p.name.startsWith("events_p"))) {
        const { rows: n } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${p.name}`);
        oldest = { name: p.name, rows: n[0]!.n };
        if (oldest.rows > 0) break;
      }
      const t0 = performance.now();
      await dropEventPartition(server.ctx.database, oldest.name);
      const ms = Math.round(performance.now() - t0);
      // Then the oldest day of messages that holds rows, with its recipients' tables first (lib/domain/partitions/message-partitions.ts).
      let messagesDay = { name: "", rows: 0 };
      for (const p of (await listDayPartitions(server.ctx.database, "messages")).filter((p) => p.name.startsWith("messages_p"))) {
        const { rows: n } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${p.name}`);
        messagesDay = { name: p.name, rows: n[0]!.n };
        if (messagesDay.rows > 0) break;
      }
      const t1 = performance.now();
      await dropRecipientsDay(server.ctx.database, `message_recipients${messagesDay.name.slice("messages".length)}`);
      await dropDayPartition(server.ctx.database, "messages", messagesDay.name);
      const messagesMs = Math.round(performance.now() - t1);
      send({ type: "dropped", name: oldest.name, rows: oldest.rows, ms, messagesName: messagesDay.name, messageRows: messagesDay.rows, messagesMs });
    }
    if (msg.type === "stop") {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
      send({ type: "stopped" });
      process.exit(0);
    }
  });
  send({
    type: "ready",
    url: server.url,
    databaseUrl: server.ctx.database.url,
    apiKey: account.apiKey,
    accountId: account.accountId,
    messageId: rows[0]!.id,
    events: rows[0]!.n,
    loadSeconds,
    eventBytes: size[0]!.bytes,
  });
}

/**
 * For 100 sends, one every 100 ms: the milliseconds from POST /email's answer until
 * the account's reads are routed to the replica again (docs/adr/0036).
 */
async function readYourWritesWindows(server: Awaited<ReturnType<typeof startServer>>, apiKey: string, accountId: string): Promise<number[]> {
  const { reads, readDatabase } = server.ctx;
  const onReplica = () => reads.run(accountId, async (db) => db === readDatabase);
  const windows: number[] = [];
  const body = JSON.stringify({ From: { email: "bench@example.com" }, To: [{ email: "r@example.net" }], Subject: "ryw", ContentType: "Text", PlainContent: "x" });
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${server.url}/api/v1/email`, { method: "POST", headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" }, body });
    await res.arrayBuffer();
    const t0 = performance.now();
    while (!(await onReplica())) await new Promise((r) => setTimeout(r, 2));
    windows.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 100));
  }
  return windows;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
