/**
 * `npm run bench:read-replica` (docs/BENCHMARKS.md, "Reads from a replica"):
 * what MAILROOM_READ_DATABASE_URL costs and buys. Starts a throwaway primary
 * of the machine's PostgreSQL server and a standby made from it by
 * `pg_basebackup -R` (test/support/pg-replica.ts), then runs the API server
 * (bench/api-server.ts, BENCH_EVENTS preloaded events, default 20,000)
 * three times on the same primary: without the replica, with it, and
 * without it again (the spread of the two tells a shared machine's noise). For each:
 *   - GET /events?MessageID=… and ?RetrieveCount=20 at 100/s open loop;
 *   - POST /email, closed loop (autocannon, BENCH_CONNECTIONS, default 16):
 *     the sampler and the write notes must not cost acceptance anything;
 * and, with the replica, the read-your-writes window: from a send's answer
 * until that account's reads go to the replica again (100 sends).
 * Env: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS, BENCH_EVENTS.
 */
import { fork, type ChildProcess } from "node:child_process";
import { ask } from "./child-ipc";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { postgresServerBin, startReplicatedPair } from "../test/support/pg-replica";
import { pacedLoad } from "./paced-load";

const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);

interface Ready {
  type: "ready";
  url: string;
  apiKey: string;
  messageId: string;
  events: number;
}

function start(env: Record<string, string>): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = fork(path.join(import.meta.dirname, "api-server.ts"), [], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, BENCH_EVENTS: process.env.BENCH_EVENTS ?? "20000", ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`api-server.ts exited with ${code}`)));
    child.on("message", (msg: { type: string }) => {
      if (msg.type === "ready") resolve({ child, ready: msg as Ready });
    });
  });
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function run(label: string, env: Record<string, string>) {
  const { child, ready } = await start(env);
  const auth = { Authorization: `Bearer ${ready.apiKey}`, "Content-Type": "application/json" };
  const post = { url: `${ready.url}/api/v1/email`, method: "POST" as const, headers: auth, body: JSON.stringify({ From: { email: "bench@example.com" }, To: [{ email: "r@example.net" }], Subject: "Bench", ContentType: "HTML", HTMLContent: "<p>hi</p>".repeat(200) }) };
  // The replica has replayed the preload (and its VACUUM) before anything is measured.
  if (env.BENCH_READ_DATABASE_URL) {
    for (;;) {
      const { health } = await ask<{ health: { state: string; lagMs?: number } }>(child, "replica");
      if (health.state === "ok" && health.lagMs === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  // The reads first, over the preloaded (summarised) events: the POST phase adds thousands of
  // young events that GET /events would count row by row (docs/adr/0101).
  for (const [name, query] of [["MessageID=…", `MessageID=${ready.messageId}`], ["RetrieveCount=20", "RetrieveCount=20"]] as const) {
    const g = await pacedLoad(`${ready.url}/api/v1/events?${query}`, auth, 100, duration);
    console.error(`${label}: GET /events?${name} at 100/s  p50 ${g.p50} ms  p99 ${g.p99} ms  max ${g.max} ms  errors ${g.errors}`);
  }
  await autocannon({ ...post, connections, duration: 2 }); // warm-up
  // The server's CPU per request: less sensitive to a busy machine than req/s.
  const cpu0 = (await ask<{ micros: number }>(child, "cpu")).micros;
  const r = await autocannon({ ...post, connections, duration });
  const cpu1 = (await ask<{ micros: number }>(child, "cpu")).micros;
  const perRequest = Math.round((cpu1 - cpu0) / Math.max(1, r.requests.average * duration));
  console.error(`${label}: POST /email ${Math.round(r.requests.average)} req/s  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  non-2xx ${r.non2xx}  server CPU ${perRequest} µs/req`);
  if (env.BENCH_READ_DATABASE_URL) {
    const { windows } = await ask<{ windows: number[] }>(child, "ryw");
    const sorted = windows.sort((a, b) => a - b);
    console.error(`${label}: reads back on the replica after a send: p50 ${pct(sorted, 50).toFixed(0)} ms  p99 ${pct(sorted, 99).toFixed(0)} ms  max ${sorted.at(-1)!.toFixed(0)} ms`);
  }
  child.removeAllListeners("exit");
  await ask(child, "stop", "stopped");
}

async function main() {
  const bin = postgresServerBin();
  if (!bin) {
    console.error("bench:read-replica: no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)");
    process.exit(1);
  }
  const pair = await startReplicatedPair(bin);
  try {
    console.error(`bench:read-replica: ${duration}s per scenario, ${connections} connections; primary ${pair.primaryUrl}, standby ${pair.standbyUrl}`);
    // The primary alone before and after: on a shared machine the spread of the two tells the noise.
    await run("primary only   ", { BENCH_DATABASE_URL: pair.primaryUrl });
    await run("with a replica ", { BENCH_DATABASE_URL: pair.primaryUrl, BENCH_READ_DATABASE_URL: pair.standbyUrl });
    await run("primary again  ", { BENCH_DATABASE_URL: pair.primaryUrl });
    console.error(`machine load average ${os.loadavg()[0]!.toFixed(1)}`);
  } finally {
    await pair.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
