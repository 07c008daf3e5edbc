/**
 * `npm run bench:api`: the API benchmark (docs/BENCHMARKS.md, "API").
 *
 * Starts Mailroom (API only, workers off, embedded PostgreSQL in a temp dir
 * or a fresh database on BENCH_DATABASE_URL's server) in a child process,
 * with an `unlimited` account and BENCH_EVENTS (default 100,000) preloaded
 * events; then measures with autocannon on loopback:
 *   - POST /email (one recipient, 2 KB HTML)
 *   - GET /events?MessageID=… and an unfiltered page (GET /events?RetrieveCount=20)
 *   - GET /events?Recipient=… and ?Subject=… (a rare and a common fragment), the extension filters
 * and, against the same database, the ceiling: a bare node:http server
 * committing the same rows in one transaction (bench/api-ceiling.ts).
 *
 * Env: BENCH_DURATION (s, default 15), BENCH_CONNECTIONS (default 16),
 *      BENCH_EVENTS, BENCH_DAYS (default 30), BENCH_DATABASE_URL, BENCH_JSON=1 (machine-readable output),
 *      BENCH_HOLD_SECONDS (keep the database up after the measurements, to read plans).
 */
import { fork, type ChildProcess } from "node:child_process";
import { ask } from "./child-ipc";
import path from "node:path";
import autocannon from "autocannon";
import { pacedLoad } from "./paced-load";

const duration = Number(process.env.BENCH_DURATION ?? 15);
const PACED_RATE = 100;
/** /stats requests a second in the open-loop run: a few dashboards open at once. */
const STATS_PACED_RATE = 5;
// BENCH_ONLY=post,events,stats,retention,ceiling runs only those groups (default: all).
const only = new Set((process.env.BENCH_ONLY ?? "post,events,stats,retention,ceiling").split(",").map((s) => s.trim()));
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const here = import.meta.dirname;

interface Ready {
  type: "ready";
  url: string;
  databaseUrl?: string;
  apiKey?: string;
  accountId?: string;
  messageId?: string;
  events?: number;
  loadSeconds?: number;
  eventBytes?: number;
}

function start(file: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = fork(path.join(here, file), [], { execArgv: ["--import", "tsx"], env: { ...process.env, ...env }, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${file} exited with ${code}`)));
    child.on("message", (msg: { type: string }) => {
      if (msg.type === "ready") resolve({ child, ready: msg as Ready });
    });
  });
}

interface Figures {
  name: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  peakRssMb: number;
  /** Server CPU time per request (user + system), a figure less sensitive to a busy machine than req/s. */
  cpuMicrosPerRequest: number;
}

async function measure(name: string, child: ChildProcess, opts: autocannon.Options, conns = connections): Promise<Figures> {
  let peak = 0;
  const sample = async () => {
    peak = Math.max(peak, (await ask<{ rss: number }>(child, "rss", "rss")).rss);
  };
  const timer = setInterval(() => void sample(), 500);
  // Warm-up: JIT, connection pools, caches.
  await autocannon({ ...opts, connections: conns, duration: 2 });
  const cpu0 = (await ask<{ micros: number }>(child, "cpu", "cpu")).micros;
  const r = await autocannon({ ...opts, connections: conns, duration });
  const cpu1 = (await ask<{ micros: number }>(child, "cpu", "cpu")).micros;
  clearInterval(timer);
  await sample();
  const total = r.requests.average * duration;
  const f: Figures = {
    name,
    reqPerSec: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    peakRssMb: Math.round(peak / 1024 / 1024),
    cpuMicrosPerRequest: total > 0 ? Math.round((cpu1 - cpu0) / total) : 0,
  };
  console.error(`${name.padEnd(34)} ${String(f.reqPerSec).padStart(6)} req/s  p50 ${f.p50} ms  p99 ${f.p99} ms  non-2xx ${f.non2xx}  errors ${f.errors}  peak RSS ${f.peakRssMb} MB  server CPU ${f.cpuMicrosPerRequest} µs/req`);
  return f;
}

const html = `<html><body>${"<p>Hello from the Mailroom benchmark, this paragraph pads the body.</p>".repeat(28)}</body></html>`.slice(0, 2048);
const emailBody = JSON.stringify({
  From: { name: "Bench", email: "bench@example.com" },
  To: [{ name: "Recipient", email: "recipient@example.net" }],
  Subject: "Benchmark message",
  ContentType: "HTML",
  HTMLContent: html,
});

async function main() {
  console.error(`bench:api: ${duration}s per scenario, ${connections} connections, starting the server and preloading events...`);
  const mailroom = await start("api-server.ts");
  const m = mailroom.ready;
  console.error(`server ${m.url}, ${m.events} events stored`);
  if (m.loadSeconds !== undefined)
    console.error(`load into the day partitions: ${m.loadSeconds.toFixed(1)} s; events on disk ${(m.eventBytes! / 1024 / 1024).toFixed(0)} MB, ${(m.eventBytes! / m.events! * 1e6 / 1024 / 1024).toFixed(0)} MB per million events (indexes included)`);
  const auth = { Authorization: `Bearer ${m.apiKey}`, "Content-Type": "application/json" };
  const results: Figures[] = [];
  const post = { url: `${m.url}/api/v1/email`, method: "POST", headers: auth, body: emailBody };
  let postFigures: Figures | undefined;
  const paced: ({ name: string } & Awaited<ReturnType<typeof pacedLoad>>)[] = [];
  // GET scenarios first, over the preloaded (summarised) events: events younger than five minutes are
  // counted row by row (docs/adr/0101), and the POST phase adds ~20,000 of them.
  if (only.has("events")) {
    const byId = { url: `${m.url}/api/v1/events?MessageID=${m.messageId}`, headers: auth };
    const page20 = { url: `${m.url}/api/v1/events?RetrieveCount=20`, headers: auth };
    const page = { url: `${m.url}/api/v1/events`, headers: auth };
    results.push(await measure("GET /events?MessageID=…", mailroom.child, byId));
    results.push(await measure("GET /events?RetrieveCount=20", mailroom.child, page20));
    results.push(await measure("GET /events (default page)", mailroom.child, page));
    // The extension filters (docs/adr/0051): one recipient's ~20 messages, a rare and a common subject fragment.
    const byRecipient = { url: `${m.url}/api/v1/events?Recipient=R7%40Example.NET&RetrieveCount=20`, headers: auth };
    const bySubject = { url: `${m.url}/api/v1/events?Subject=${encodeURIComponent("order #12345")}&RetrieveCount=20`, headers: auth };
    const byCommonSubject = { url: `${m.url}/api/v1/events?Subject=order&RetrieveCount=20`, headers: auth };
    results.push(await measure("GET /events?Recipient=…", mailroom.child, byRecipient));
    results.push(await measure("GET /events?Subject=(rare)", mailroom.child, bySubject));
    results.push(await measure("GET /events?Subject=(common)", mailroom.child, byCommonSubject));
    // Latency at the rate one key may use (MAILROOM_API_REQUEST_RATE's default, 100/s), not at saturation.
    const pacedScenarios = [
      ["MessageID=…", byId],
      ["RetrieveCount=20", page20],
      ["default page", page],
      ["Recipient=…", byRecipient],
      ["Subject=(rare)", bySubject],
      ["Subject=(common)", byCommonSubject],
    ] as const;
    for (const [name, o] of pacedScenarios) {
      const r = await pacedLoad(o.url, o.headers, PACED_RATE, duration);
      paced.push({ name: `GET /events ${name} at ${PACED_RATE}/s`, ...r });
      console.error(`GET /events ${name} at ${PACED_RATE}/s (open loop)`.padEnd(44), `p50 ${r.p50} ms  p99 ${r.p99} ms  max ${r.max} ms  errors ${r.errors}`);
    }
  }
  if (only.has("stats")) {
    const now = Math.floor(Date.now() / 1000);
    const url = `${m.url}/api/v1/stats?StartDate=${now - 30 * 86_400}&EndDate=${now}&Interval=day`;
    results.push(await measure("GET /stats (30 days, daily)", mailroom.child, { url, headers: auth }));
    // One request at a time, as a dashboard page asks (the target is per request, not at saturation).
    const r = await pacedLoad(url, auth, STATS_PACED_RATE, duration);
    paced.push({ name: `GET /stats (30 days, daily) at ${STATS_PACED_RATE}/s`, ...r });
    console.error(`GET /stats (30 days) at ${STATS_PACED_RATE}/s (open loop)`.padEnd(44), `p50 ${r.p50} ms  p99 ${r.p99} ms  max ${r.max} ms  errors ${r.errors}`);
  }

  if (only.has("post")) {
    results.push((postFigures = await measure("POST /email", mailroom.child, post)));
    results.push(await measure("POST /email, 1 connection", mailroom.child, post, 1));
  }
  let retention: { rows: number; ms: number; baselineP99: number; duringP99: number } | undefined;
  if (only.has("retention")) {
    // POST /email p99 at a steady 100/s, without and then with the oldest day partitions (events, then messages) dropped 2 s in.
    const rate = { ...post, connections: 8, overallRate: 100, duration: 10 };
    const baseline = await autocannon(rate);
    const during = autocannon(rate);
    await new Promise((r) => setTimeout(r, 2000));
    const dropped = await ask<{ name: string; rows: number; ms: number; messagesName: string; messageRows: number; messagesMs: number }>(
      mailroom.child,
      "drop-oldest-day",
      "dropped",
    );
    const d = await during;
    retention = { rows: dropped.rows, ms: dropped.ms, baselineP99: baseline.latency.p99, duringP99: d.latency.p99 };
    console.error(`retention of one day: ${dropped.name} (${dropped.rows} events) detached and dropped in ${dropped.ms} ms`);
    console.error(`  then ${dropped.messagesName} (${dropped.messageRows} messages) with its recipients' day tables in ${dropped.messagesMs} ms`);
    console.error(`POST /email at 100/s: p99 ${baseline.latency.p99} ms without, ${d.latency.p99} ms during the drop (non-2xx ${baseline.non2xx}/${d.non2xx})`);
  }
  let ratio: number | undefined;
  if (only.has("ceiling")) {
    const ceiling = await start("api-ceiling.ts", { BENCH_CEILING_DATABASE_URL: m.databaseUrl!, BENCH_CEILING_ACCOUNT: m.accountId! });
    const ceilingPost = { url: ceiling.ready.url, method: "POST", headers: { "Content-Type": "application/json" }, body: emailBody };
    const c = await measure("ceiling: node:http + same rows", ceiling.child, ceilingPost);
    results.push(c);
    results.push(await measure("ceiling, 1 connection", ceiling.child, ceilingPost, 1));
    await ask(ceiling.child, "stop", "stopped");
    if (postFigures) ratio = postFigures.reqPerSec / c.reqPerSec;
  }
  // BENCH_HOLD_SECONDS: keep the loaded database up after the measurements (to read plans with psql).
  const hold = Number(process.env.BENCH_HOLD_SECONDS ?? 0);
  if (hold > 0) {
    console.error(`holding ${hold} s: ${m.databaseUrl}`);
    await new Promise((r) => setTimeout(r, hold * 1000));
  }
  await ask(mailroom.child, "stop", "stopped");

  const load = (await import("node:os")).loadavg()[0]!.toFixed(1);
  if (ratio !== undefined) console.error(`POST /email / ceiling = ${ratio.toFixed(2)} (req/s)`);
  console.error(`machine load average ${load}`);
  if (process.env.BENCH_JSON) console.log(JSON.stringify({ duration, connections, events: m.events, loadSeconds: m.loadSeconds, eventBytes: m.eventBytes, results, paced, retention, ratio }, null, 2));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
