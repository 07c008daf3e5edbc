/**
 * `npm run bench:soak [-- --rate 300 --duration 10m --workers 0 --drain 10m]`: a steady send rate
 * through the sandbox transport with a delivery webhook registered, for a
 * while, then a reconciliation. Prints throughput, API latency (p50/p99),
 * accepted → delivered latency, webhook lag, the server's RSS over time and
 * whether everything accepted reached a final event and its notification.
 * Exits non-zero when something was lost.
 *
 * The server runs as a child process (`scripts/start.ts`, API only, workers
 * inline) on a temporary embedded PostgreSQL, or on DATABASE_URL if set.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { parseDuration } from "../lib/config";
import { freePort, startAppProcess, startWorkerProcess, waitFor, type Proc } from "../test/support/processes";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const rate = Number(args.get("rate") ?? 300);
const durationMs = parseDuration(args.get("duration") ?? "10m") ?? 600_000;
// --workers N: delivery in N `mailroom worker` processes instead of inside the app process.
const workerCount = Number(args.get("workers") ?? 0);
// How long the backlog may take to drain after the send phase before what is missing counts as lost.
const drainMs = parseDuration(args.get("drain") ?? "") ?? Math.max(120_000, durationMs);
const root = path.resolve(import.meta.dirname, "..");

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN);
const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "n/a");

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-soak-"));
  const env: Record<string, string> = {
    MAILROOM_DATA_DIR: dataDir,
    // Any free port: CI runs the soak on a machine where other servers may have run.
    MAILROOM_EMBEDDED_PG_PORT: "0",
    MAILROOM_WORKERS: workerCount > 0 ? "off" : "inline",
    MAILROOM_ALLOW_PRIVATE_WEBHOOKS: "true",
    MAILROOM_WEBHOOK_RETRY_SCHEDULE: "1s,2s,5s",
    LOG_LEVEL: "error",
  };
  if (process.env.DATABASE_URL) env.DATABASE_URL = process.env.DATABASE_URL;

  // The webhook receiver: records when each notification arrived.
  const notified = new Map<string, number>();
  let notifications = 0;
  const receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      notifications++;
      const id = (JSON.parse(body) as { EventData: { MessageID: string } }).EventData.MessageID;
      if (!notified.has(id)) notified.set(id, Date.now());
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/soak`;

  console.log(
    `soak: ${rate} msg/s for ${durationMs / 1000} s, sandbox transport, delivery webhook registered, ${workerCount > 0 ? `${workerCount} worker process(es)` : "workers inside the app process"}`,
  );
  const app = await startAppProcess(env);
  const pid = app.child.pid!;
  const workers: Proc[] = [];
  for (let i = 0; i < workerCount; i++) {
    // Its /metrics port answers once its workers run (the soak's LOG_LEVEL=error hides the "worker started" line).
    const metricsPort = await freePort();
    const w = startWorkerProcess({ ...env, MAILROOM_WORKER_METRICS_PORT: String(metricsPort) });
    await waitFor("a worker to start", async () => {
      if (w.child.exitCode !== null) throw new Error(`worker exited: ${w.output()}`);
      return fetch(`http://127.0.0.1:${metricsPort}/metrics`).then(() => true, () => false);
    }, 60_000);
    workers.push(w);
  }
  const workerRss = () => workers.reduce((sum, w) => sum + rssMb(w.child.pid!), 0);
  const created = JSON.parse(
    execFileSync(process.execPath, ["bin/mailroom.mjs", "accounts", "create", "--name", "Soak", "--plan", "unlimited", "--domain", "example.com", "--verified", "--json"], {
      cwd: root,
      env: { ...process.env, ...env },
      encoding: "utf8",
    }),
  ) as { accountId: string; apiKey: string };
  const headers = { Authorization: `Bearer ${created.apiKey}`, "Content-Type": "application/json" };
  const hook = await fetch(`${app.url}/api/v1/webhooks`, { method: "POST", headers, body: JSON.stringify({ Event: "delivery", WebhookURL: receiverUrl }) });
  if (hook.status !== 200) throw new Error(`webhook registration failed: ${hook.status} ${await hook.text()}`);

  const html = `<html><body><p>${"Soak test body. ".repeat(120)}</p><a href="https://example.org/x">link</a></body></html>`;
  const sentAt = new Map<string, number>();
  const apiLatencies: number[] = [];
  /** The errors by HTTP status ("no answer" for a request that got none): a 429 is the pushback of docs/adr/0322, a 5xx a defect. */
  const errorsByStatus: Record<string, number> = {};
  const countError = (status: string) => void (errorsByStatus[status] = (errorsByStatus[status] ?? 0) + 1);
  const rss: { t: number; mb: number; workersMb: number }[] = [];
  const started = Date.now();
  const sampler = setInterval(() => rss.push({ t: Math.round((Date.now() - started) / 1000), mb: rssMb(pid), workersMb: workerRss() }), 5000);

  // Open-loop load: every 10 ms, send what the schedule owes.
  let due = 0;
  let sent = 0;
  const inFlight = new Set<Promise<void>>();
  while (Date.now() - started < durationMs) {
    due = Math.floor(((Date.now() - started) / 1000) * rate);
    while (sent < due) {
      const i = sent++;
      const t0 = performance.now();
      const p = fetch(`${app.url}/api/v1/email`, {
        method: "POST",
        headers,
        body: JSON.stringify({ From: { name: "Soak", email: "soak@example.com" }, To: [{ email: `r${i}@example.org` }], Subject: `soak ${i}`, ContentType: "HTML", HTMLContent: html }),
      })
        .then(async (res) => {
          const t1 = performance.now();
          if (res.status === 200) {
            sentAt.set(((await res.json()) as { MessageID: string }).MessageID, Date.now());
            apiLatencies.push(t1 - t0);
          } else {
            countError(String(res.status));
            await res.text();
          }
        })
        .catch((err: Error & { cause?: { code?: string } }) => countError(`no answer (${err.cause?.code ?? err.message})`))
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  await Promise.all(inFlight);
  const sendSeconds = (Date.now() - started) / 1000;

  // Reconciliation: every accepted recipient reaches a final event and its notification.
  const db = new pg.Client({ connectionString: await databaseUrlOf(env, dataDir) });
  await db.connect();
  const sendEnded = Date.now();
  const deadline = sendEnded + drainMs;
  let finals = 0;
  while (Date.now() < deadline) {
    const { rows } = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND type IN ('delivered','failed','rejected')",
      [created.accountId],
    );
    finals = rows[0]!.n;
    if (finals >= sentAt.size && notified.size >= sentAt.size) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const drainedAfter = (Date.now() - sendEnded) / 1000;
  clearInterval(sampler);
  rss.push({ t: Math.round((Date.now() - started) / 1000), mb: rssMb(pid), workersMb: workerRss() });

  const { rows: deliveredRows } = await db.query<{ id: string; at: Date }>(
    "SELECT mailroom_message_id AS id, received_at AS at FROM sandbox_messages WHERE mailroom_message_id = ANY($1::uuid[])",
    [[...sentAt.keys()]],
  );
  const { rows: outboxRows } = await db.query<{ id: string; at: Date }>(
    "SELECT payload->>'MessageID' AS id, min(created_at) AS at FROM webhook_notifications WHERE account_id = $1 GROUP BY 1",
    [created.accountId],
  );
  await db.end();

  const deliveredInRun = deliveredRows.filter((r) => r.at.getTime() <= sendEnded).length;
  const e2e = deliveredRows.map((r) => r.at.getTime() - sentAt.get(r.id)!).sort((a, b) => a - b);
  const lag = outboxRows.filter((r) => notified.has(r.id)).map((r) => notified.get(r.id)! - r.at.getTime()).sort((a, b) => a - b);
  const api = apiLatencies.sort((a, b) => a - b);
  const third = Math.max(1, Math.floor(rss.length / 3));
  const early = rss.slice(0, third).reduce((s, x) => s + x.mb + x.workersMb, 0) / third;
  const late = rss.slice(-third).reduce((s, x) => s + x.mb + x.workersMb, 0) / third;
  const lost = sentAt.size - finals;

  const errors = Object.values(errorsByStatus).reduce((sum, n) => sum + n, 0);
  console.log(`
accepted             ${sentAt.size} in ${sendSeconds.toFixed(0)} s = ${(sentAt.size / sendSeconds).toFixed(1)} msg/s (offered ${rate}/s), errors ${errors}${errors ? ` ${JSON.stringify(errorsByStatus)}` : ""}
API latency          p50 ${fmt(pct(api, 50))} ms, p99 ${fmt(pct(api, 99))} ms
delivered            ${deliveredInRun} during the send phase (${(deliveredInRun / sendSeconds).toFixed(1)} msg/s); the rest within ${drainedAfter.toFixed(0)} s after it
accepted → delivered p50 ${fmt(pct(e2e, 50))} ms, p99 ${fmt(pct(e2e, 99))} ms (${e2e.length} captured by the sandbox MX)
webhook lag          p50 ${fmt(pct(lag, 50))} ms, p99 ${fmt(pct(lag, 99))} ms (event logged → POST received)
server RSS (MB)      ${rss.map((r) => `${r.t}s:${r.mb.toFixed(0)}${workerCount > 0 ? `+${r.workersMb.toFixed(0)}` : ""}`).join(" ")}${workerCount > 0 ? " (app+workers)" : ""}
RSS drift            first third avg ${early.toFixed(0)} MB, last third avg ${late.toFixed(0)} MB
reconciliation       accepted ${sentAt.size}, final events ${finals}, notified ${notified.size} distinct (${notifications} POSTs), lost ${lost}`);

  for (const w of workers) await w.kill("SIGTERM");
  await app.kill("SIGTERM");
  receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (lost !== 0 || notified.size < sentAt.size) {
    console.error("FAILED: not everything accepted reached a final event and its notification");
    process.exit(1);
  }
}

/** The URL the server uses: DATABASE_URL, or the embedded server of the data dir. */
async function databaseUrlOf(env: Record<string, string>, dataDir: string): Promise<string> {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  const { startEmbeddedPostgres } = await import("../lib/storage/embedded");
  return (await startEmbeddedPostgres({ dataDir, port: 0 })).url; // connects to the running one
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
