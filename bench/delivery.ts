/**
 * `npm run bench:delivery`: the delivery benchmark (docs/BENCHMARKS.md).
 *
 * Starts Mailroom API-only (MAILROOM_WORKERS=off, embedded PostgreSQL in a
 * temp dir, or BENCH_DATABASE_URL) in this process, a local SMTP sink
 * (smtp-server answering 250 at once) as the relay, and 1 then 2 separate
 * delivery worker processes (test/support/delivery-worker.ts: storage +
 * queue + the deliver loop of startWorkers). For each worker
 * count:
 *   1. throughput: BENCH_MESSAGES (default 5000) messages are accepted
 *      with the workers stopped (by POST /email's use case, sendEmail, called
 *      in process: the same rows and jobs without HTTP), then the workers start;
 *      delivered messages per second from their start to the last delivery;
 *   2. latency: BENCH_RATE (default 200) messages/s offered through POST /email
 *      for BENCH_SECONDS (default 15) s with the workers running; accepted →
 *      delivered percentiles (messages.created_at → the recipient's final
 *      status write, both in the database).
 * Each message: one recipient, HTML + text (~1 KB) with one tracked link and
 * the open pixel, DKIM-signed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SMTPServer } from "smtp-server";
import { buildConfig } from "../lib/config";
import { createAccount } from "../lib/domain/accounts/accounts";
import { authenticateApiKey } from "../lib/domain/accounts/api-keys";
import { sendEmail } from "../lib/domain/sending/send-email";
import { startServer } from "../server";

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 5000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? "1,2").split(",").map(Number);
const CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY ?? "64";
const ROOT = path.resolve(import.meta.dirname, "..");

async function startSink(): Promise<{ port: number; count: () => number; stop: () => void }> {
  let count = 0;
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    onData(stream, _session, callback) {
      stream.on("data", () => {});
      stream.on("end", () => {
        count++;
        callback(null, "2.0.0 Ok");
      });
    },
  });
  server.on("error", () => {});
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { port: (server.server.address() as { port: number }).port, count: () => count, stop: () => server.close() };
}

const children = new Set<ChildProcess>();
process.on("exit", () => children.forEach((c) => c.kill("SIGKILL")));

function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  // BENCH_WORKER_PROFILE=<dir>: V8 CPU profiles of the workers, for finding hot spots.
  const profile = process.env.BENCH_WORKER_PROFILE ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_WORKER_PROFILE] : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", path.join(ROOT, "test/support/delivery-worker.ts")], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve(child));
    child.once("exit", (code) => reject(new Error(`worker exited with ${code}`)));
  });
}

/** CPU seconds (user + system) a process has used so far (Linux /proc). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

/** CPU seconds of this benchmark's embedded PostgreSQL: the postmaster (our child) and its backends. */
function postgresCpuSeconds(): number {
  const stat = (pid: string) => {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, "utf8");
      const name = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
      const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
      return { name, ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / 100 };
    } catch {
      return undefined;
    }
  };
  const all = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  const infos = new Map(all.map((pid) => [Number(pid), stat(pid)]));
  const masters = [...infos].filter(([, i]) => i?.ppid === process.pid && i.name.startsWith("postgres")).map(([pid]) => pid);
  let total = 0;
  for (const [pid, i] of infos) if (i && (masters.includes(pid) || masters.includes(i.ppid))) total += i.cpu;
  return total;
}

async function stopWorkers(workers: ChildProcess[]) {
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          w.removeAllListeners("exit");
          w.once("exit", () => resolve());
          w.kill("SIGTERM");
          setTimeout(() => w.kill("SIGKILL"), 8000).unref();
        }),
    ),
  );
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-bench-delivery-"));
  const sink = await startSink();
  const config = buildConfig({
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: process.env.BENCH_DATABASE_URL,
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_EMBEDDED_PG_PORT: "0",
    PORT: "0",
    MAILROOM_INBOUND_PORT: "0",
    MAILROOM_SUBMISSION_PORT: "0",
    MAILROOM_SUBMISSION_TLS_PORT: "0",
    MAILROOM_WORKERS: "off",
    // The queue is filled with nothing delivering: no backlog pushback (docs/contract.md §18).
    MAILROOM_MAX_BACKLOG: "0",
    MAILROOM_DELIVERY: "relay",
    SMTP_RELAY_URL: `smtp://127.0.0.1:${sink.port}`,
    MAILROOM_QUIET_START: "true",
    LOG_LEVEL: "warn",
  });
  const app = await startServer({ config, dashboard: false });
  const pool = app.ctx.database.pool;
  const account = await createAccount(app.ctx.database, { name: "Bench", plan: "unlimited", domain: "bench.example", verified: true });
  const headers = { Authorization: `Bearer ${account.apiKey}`, "Content-Type": "application/json" };
  let seq = 0;
  const body = () =>
    JSON.stringify({
      From: { name: "Bench", email: "news@bench.example" },
      To: [{ name: "Reader", email: `reader${seq++}@example.org` }],
      Subject: "Delivery benchmark",
      ContentType: "HTML",
      HTMLContent: `<html><body><h1>Hello</h1><p>${"Lorem ipsum dolor sit amet. ".repeat(20)}</p><p><a href="https://example.org/offer?id=${seq}">Offer</a></p></body></html>`,
      PlainContent: "Hello. Lorem ipsum dolor sit amet.",
      Tags: ["bench"],
    });
  const auth = await authenticateApiKey(app.ctx.database, `Bearer ${account.apiKey}`);
  if (!auth.ok) throw new Error("bench key does not authenticate");
  /** The acceptance use case of POST /email without HTTP (fills the queue fast, same rows and jobs). */
  const accept = async (): Promise<void> => {
    const result = await sendEmail(app.ctx, auth.key, JSON.parse(body()) as unknown);
    if (!result.ok) throw new Error(`sendEmail refused: ${JSON.stringify(result.errors)}`);
  };
  let refusals = 0;
  const send = async (): Promise<string> => {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${app.url}/api/v1/email`, { method: "POST", headers, body: body() }).catch((err: Error) => {
        if (attempt >= 10) throw err;
        return undefined; // connection reset on an overloaded machine: try again
      });
      if (!res) {
        refusals++;
        await new Promise((r) => setTimeout(r, 100 * (attempt + 1)));
        continue;
      }
      const json = (await res.json()) as { MessageID?: string };
      if (json.MessageID) return json.MessageID;
      // 503 (database busy) on an overloaded machine: count it and try again.
      if ((res.status === 503 || res.status === 429) && attempt < 10) {
        refusals++;
        await new Promise((r) => setTimeout(r, 100 * (attempt + 1)));
        continue;
      }
      throw new Error(`POST /email ${res.status}: ${JSON.stringify(json)}`);
    }
  };
  const pending = async () => (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM message_recipients WHERE status IN ('queued', 'deferred')")).rows[0]!.n;
  const workerEnv = {
    NODE_ENV: "production",
    DATABASE_URL: app.ctx.database.url,
    MAILROOM_DELIVERY: "relay",
    SMTP_RELAY_URL: `smtp://127.0.0.1:${sink.port}`,
    MAILROOM_WORKER_CONCURRENCY: CONCURRENCY,
    MAILROOM_PUBLIC_URL: "https://mail.bench.example",
    LOG_LEVEL: "warn",
  };

  const rows: string[] = [];
  for (const k of WORKER_COUNTS) {
    // 1. Throughput from a full queue.
    const fillStart = Date.now();
    let sent = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (sent < MESSAGES) {
          sent++;
          await accept();
        }
      }),
    );
    const fillSeconds = (Date.now() - fillStart) / 1000;
    const before = sink.count();
    const workers = await Promise.all(Array.from({ length: k }, () => startWorker(workerEnv)));
    const cpuBefore = workers.reduce((sum, w) => sum + cpuSeconds(w.pid), 0);
    const pgBefore = postgresCpuSeconds();
    const t0 = Date.now();
    while ((await pending()) > 0) await new Promise((r) => setTimeout(r, 100));
    const seconds = (Date.now() - t0) / 1000;
    const delivered = sink.count() - before;
    const throughput = delivered / seconds;
    // Worker CPU per message depends little on contention: 1000 / it is what one free core could do (PostgreSQL's share aside).
    const cpuMs = ((workers.reduce((sum, w) => sum + cpuSeconds(w.pid), 0) - cpuBefore) * 1000) / delivered;
    const pgMs = ((postgresCpuSeconds() - pgBefore) * 1000) / delivered;
    console.log(
      `${k} worker(s): ${delivered} delivered in ${seconds.toFixed(2)} s = ${throughput.toFixed(0)} msg/s; worker CPU ${cpuMs.toFixed(2)} ms/message, PostgreSQL CPU ${pgMs.toFixed(2)} ms/message (queue filled at ${(MESSAGES / fillSeconds).toFixed(0)} msg/s)`,
    );

    // 2. Latency at a fixed offered rate, workers running.
    const ids: string[] = [];
    const startedAt = Date.now();
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < RATE * SECONDS; i++) {
      const due = startedAt + (i * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      inflight.push(send().then((id) => void ids.push(id)));
    }
    await Promise.all(inflight);
    const offeredSeconds = (Date.now() - startedAt) / 1000;
    while ((await pending()) > 0) await new Promise((r) => setTimeout(r, 100));
    const { rows: lat } = await pool.query<{ ms: number }>(
      `SELECT EXTRACT(EPOCH FROM (r.updated_at - m.created_at)) * 1000 AS ms
         FROM messages m JOIN message_recipients r ON r.message_id = m.id
        WHERE m.id = ANY($1::uuid[]) AND r.status = 'delivered'`,
      [ids],
    );
    const ms = lat.map((r) => Number(r.ms)).sort((a, b) => a - b);
    const p = (q: number) => percentile(ms, q).toFixed(0);
    console.log(
      `${k} worker(s) at ${(ids.length / offeredSeconds).toFixed(0)} msg/s offered: ${ms.length}/${ids.length} delivered; accepted → delivered p50 ${p(50)} ms, p90 ${p(90)} ms, p99 ${p(99)} ms, max ${p(100)} ms`,
    );
    rows.push(`| ${k} | ${throughput.toFixed(0)} | ${cpuMs.toFixed(2)} | ${pgMs.toFixed(2)} | ${(ids.length / offeredSeconds).toFixed(0)} | ${p(50)} | ${p(90)} | ${p(99)} | ${p(100)} |`);
    await stopWorkers(workers);
  }

  if (refusals) console.log(`(POST /email answered 503/429 ${refusals} times; those requests were retried)`);
  console.log("\n| Worker processes | Delivered msg/s (from a full queue) | Worker CPU ms/message | PostgreSQL CPU ms/message | Offered msg/s | p50 ms | p90 ms | p99 ms | max ms |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) console.log(r);
  await app.stop();
  sink.stop();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
