/**
 * `npm run bench:e2e [-- --connections 16 --seconds 20 --warmup 3 --no-fault
 *   --fault-connections 8 --kill-after 3 --recovery-timeout 420 --drain-timeout 300
 *   --workers inline|process|off --dashboard --cpu-prof <dir> --json
 *   --against postfix --rounds 2 --postfix-messages 10000 --idle 5 --rate <msg/s>
 *   --mx --mta-sts enforce|off]`
 *
 * The end-to-end benchmark (docs/BENCHMARKS.md), on the default topology started as
 * `npm start` does (test/support/topology.ts: `node --import tsx
 * scripts/start.ts` in its own process group, embedded PostgreSQL in a temp
 * data directory, MAILROOM_WORKERS left to its default unless --workers,
 * dashboard off unless --dashboard and a build exists), delivering through
 * MAILROOM_DELIVERY=relay to an SMTP sink in its own process
 * (bench/e2e-sink.ts: 250 at once), loaded from its own process
 * (bench/e2e-load.ts: keep-alive connections in a closed loop).
 *
 * 1. Main phase: after a warm-up (drained, not counted), --connections
 *    connections POST /api/v1/email (~2 KB HTML, one recipient each) for
 *    --seconds, then wait until drained (every accepted recipient has a
 *    delivered/failed/rejected event). Prints accepted/s; delivered/s over
 *    the whole run (delivered / first POST → last delivery) and during the
 *    load; POST latency p50/p99/p99.9 (each 200, measured by the load
 *    process); accepted → delivered p50/p99 (messages.created_at → the
 *    recipient's final status write); CPU ms per delivered message per process
 *    role (/proc utime+stime: app, worker processes, PostgreSQL with its
 *    exited backends, other children, sink, load); peak memory per process
 *    (RSS; PostgreSQL as the sum of RSS, which counts shared memory once per
 *    backend, and the sum of PSS, which does not).
 * 2. Fault phase (skip with --no-fault; skipped with --cpu-prof, whose profile
 *    a SIGKILL would lose): --fault-connections clients send; after
 *    --kill-after s the whole process group (app, workers, embedded
 *    PostgreSQL) gets SIGKILL; the app is started again on the same data
 *    directory. Prints the seconds from the restart command until every
 *    recipient accepted (200 received) before the kill has its final event,
 *    and accepted / finalised / lost counts. Gives up after --recovery-timeout s.
 *
 * Before the main phase, --idle seconds with no load: the CPU each role spends
 * per second doing nothing (pollers, timers), which every message's CPU
 * figure carries in proportion to how few messages a second there are.
 *
 * With --mx, delivery is direct MX on a fake internet (bench/e2e-mx-rig.ts):
 * the sink is example.org's MX and offers STARTTLS; --mta-sts enforce has the
 * domain publish an enforce policy (each copy checked against it), off turns
 * MTA-STS off. The two compare the TLS policies' cost on the hot path.
 *
 * With --against postfix (where Debian's postfix is installed; nothing is
 * installed here), the main phase runs --rounds times, each after a run of
 * the Postfix reference (bench/postfix-reference.ts: Postfix's default relay
 * to smtp-sink, fed --postfix-messages 2 KB messages by smtp-source on
 * --connections connections), so that the two alternate in the same minutes;
 * then Mailroom's delivered/s is printed as a multiple of Postfix's, with
 * both figures and the CPU ms per message of all processes beside each.
 * --against postfix-dkim adds Postfix with OpenDKIM signing every message
 * (RSA-2048, relaxed/simple) at 16 and 64 connections, the better taken, and
 * prints both ratios, plain and signed, with the machine's RSA signature and
 * page-fault times (bench/postfix-comparison.ts).
 *
 * CPU per message is less sensitive to a busy machine than rates; the load
 * average is printed at the start and the end. Exits non-zero when something
 * accepted was lost or not finalised.
 */
import { fork, type ChildProcess } from "node:child_process";
import { ask } from "./child-ipc";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import type { SinkStats } from "../test/support/counting-sink";
import { activeDeliverJobs, deliveryLatencies, describeReconciliation, pendingRecipients, reconcile, slowDeliveries, type Reconciliation } from "../test/support/final-events";
import { BENCH_HTML, type PostLoadOptions, type PostLoadResult } from "../test/support/post-load";
import { readStat } from "../test/support/proc-stats";
import { startMxRig } from "./e2e-mx-rig";
import { parseAgainst, printComparison, referenceMissing, runReferenceRound, type ReferenceRound } from "./postfix-comparison";
import { cpuByRole, createUnlimitedAccount, faultsByRole, pssKb, rssKb, startTopology, type Topology } from "../test/support/topology";
import { describeCounts, startSystemCounter } from "./work-counts";

const { values: args } = parseArgs({
  options: {
    connections: { type: "string", default: "16" },
    seconds: { type: "string", default: "20" },
    warmup: { type: "string", default: "3" },
    "no-fault": { type: "boolean", default: false },
    "fault-connections": { type: "string", default: "8" },
    "kill-after": { type: "string", default: "3" },
    "recovery-timeout": { type: "string", default: "420" },
    "drain-timeout": { type: "string", default: "300" },
    workers: { type: "string" },
    dashboard: { type: "boolean", default: false },
    "cpu-prof": { type: "string" },
    json: { type: "boolean", default: false },
    against: { type: "string" },
    rounds: { type: "string", default: "2" },
    "postfix-messages": { type: "string", default: "10000" },
    idle: { type: "string", default: "5" },
    rate: { type: "string" },
    mx: { type: "boolean", default: false },
    "mta-sts": { type: "string", default: "off" },
  },
});
const connections = Number(args.connections);
const seconds = Number(args.seconds);
/** Offered POST /email per second in the main phase (paced); closed loop when not given. */
const rate = args.rate === undefined ? undefined : Number(args.rate);
if (rate !== undefined && !(rate > 0)) throw new Error(`--rate: a positive number of messages a second, not ${args.rate}`);
const warmup = Number(args.warmup);
const cpuProf = args["cpu-prof"] ? path.resolve(args["cpu-prof"]) : undefined;
const fault = !args["no-fault"] && !cpuProf;
const here = import.meta.dirname;
const against = parseAgainst(args.against);
if (args["mta-sts"] !== "enforce" && args["mta-sts"] !== "off") throw new Error(`--mta-sts: enforce or off, not ${args["mta-sts"]}`);

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN);
const ms = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : "n/a");
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
const loadavg = () => os.loadavg().map((l) => l.toFixed(2)).join(" ");
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

function child(file: string, env?: Record<string, string>): Promise<{ proc: ChildProcess; ready: Record<string, unknown> }> {
  const proc = fork(path.join(here, file), [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"], ...(env && { env: { ...process.env, ...env } }) });
  return new Promise((resolve, reject) => {
    proc.once("exit", (code) => reject(new Error(`${file} exited with ${code}`)));
    proc.once("message", (msg: { type: string }) => (msg.type === "ready" ? resolve({ proc, ready: msg }) : reject(new Error(`${file}: ${JSON.stringify(msg)}`))));
  });
}

function dbPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on("error", () => {}); // the fault phase kills its server
  return pool;
}

/**
 * The server's WAL position and pg_stat_wal's counters (the whole cluster, the benchmark's own reads
 * included, which write none): bytes, records and full-page images.
 */
async function walPosition(pool: pg.Pool): Promise<{ bytes: number; records: number; fullPageImages: number }> {
  const { rows } = await pool.query<{ bytes: string; records: string; fpi: string }>(
    "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint AS bytes, wal_records AS records, wal_fpi AS fpi FROM pg_stat_wal",
  );
  return { bytes: Number(rows[0]!.bytes), records: Number(rows[0]!.records), fullPageImages: Number(rows[0]!.fpi) };
}

/** Transactions committed or rolled back in the cluster so far (pg_stat_database; the benchmark's own polls included). */
async function transactions(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string }>("SELECT sum(xact_commit + xact_rollback)::bigint AS n FROM pg_stat_database");
  return Number(rows[0]!.n);
}

/** Polls until every recipient of `ids` has a final event, or the deadline. */
async function untilFinal(
  pool: pg.Pool,
  accountId: string,
  ids: string[],
  timeoutMs: number,
  everyMs: number,
  onPoll?: (pending: number, at: number) => void,
): Promise<{ counts: Reconciliation; at: number; done: boolean }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // The poll is the account's pending count (a few ms); the full reconciliation of thousands of
    // MessageIDs (~60 ms of PostgreSQL CPU) runs only once nothing is pending. Reconciling at every
    // poll took ~15% of the 2 cores while the backlog drained, CPU the measured system then lacked.
    const pending = await pendingRecipients(pool, accountId).catch(() => undefined);
    const at = Date.now();
    if (pending !== undefined) onPoll?.(pending, at);
    if (pending === 0) {
      const counts = await reconcile(pool, accountId, ids).catch(() => undefined);
      if (counts && counts.finalRecipients >= ids.length) return { counts, at, done: true };
    }
    if (at > deadline) return { counts: await reconcile(pool, accountId, ids), at, done: false };
    await sleep(everyMs);
  }
}

/** Peak memory per process over the run, sampled every second. */
function memorySampler(topology: Topology, others: Record<string, number>) {
  const peaks = new Map<string, number>();
  const keep = (label: string, kb: number) => peaks.set(label, Math.max(peaks.get(label) ?? 0, kb));
  const sample = () => {
    let pgRss = 0;
    let pgPss = 0;
    for (const p of topology.processes()) {
      if (p.role === "postgres") {
        pgRss += rssKb(p.pid);
        pgPss += pssKb(p.pid);
      } else {
        keep(p.role === "app" ? "app (RSS)" : p.role === "workers" ? `worker ${p.pid} (RSS)` : `${p.comm} ${p.pid} (RSS)`, rssKb(p.pid));
      }
    }
    keep("PostgreSQL Σ RSS (counts shared memory per backend)", pgRss);
    keep("PostgreSQL Σ PSS", pgPss);
    for (const [label, pid] of Object.entries(others)) keep(`${label} (RSS)`, rssKb(pid));
  };
  sample();
  const timer = setInterval(sample, 1000);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return Object.fromEntries(peaks);
    },
  };
}

async function main() {
  if (against) {
    const missing = referenceMissing(against);
    if (missing) {
      console.error(`bench:e2e --against ${against}: ${missing}`);
      process.exit(2);
    }
  }
  const started = { loadavg: loadavg(), at: new Date().toISOString() };
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-bench-e2e-"));
  const children: ChildProcess[] = [];
  let topology: Topology | undefined;
  // --mx: direct-MX delivery on a fake internet, MTA-STS enforced or off (bench/e2e-mx-rig.ts).
  const mxRig = args.mx ? await startMxRig(dataDir, args["mta-sts"] === "enforce") : undefined;
  const cleanup = async () => {
    await topology?.stop().catch(() => {});
    await mxRig?.stop();
    for (const c of children) c.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const sink = await child("e2e-sink.ts", mxRig?.sinkEnv);
    const load = await child("e2e-load.ts");
    children.push(sink.proc, load.proc);
    const sinkPort = sink.ready.port as number;
    topology = await startTopology({
      dataDir,
      relayUrl: `smtp://127.0.0.1:${sinkPort}`,
      ...(mxRig && { env: mxRig.appEnv(sinkPort) }),
      workers: args.workers,
      dashboard: args.dashboard,
      execArgv: cpuProf ? ["--cpu-prof", `--cpu-prof-dir=${cpuProf}`] : undefined,
    });
    const workersMode = args.workers ?? process.env.MAILROOM_WORKERS ?? "the default";
    console.log(
      `bench:e2e: npm start's topology (MAILROOM_WORKERS=${workersMode}, dashboard ${topology.dashboard ? "on" : "off"}, embedded PostgreSQL), ${mxRig ? `direct MX (STARTTLS, MTA-STS ${args["mta-sts"]})` : "relay"} to an SMTP sink process, load from its own process; load average ${started.loadavg}`,
    );
    let pool = dbPool(topology.databaseUrl());
    const account = await createUnlimitedAccount(topology.databaseUrl(), "Bench", "bench.example");
    const run = (o: Partial<PostLoadOptions> & { tag: string; connections: number }) =>
      ask<{ result: PostLoadResult }>(load.proc, { type: "run", url: topology!.url, apiKey: account.apiKey, html: BENCH_HTML, fromEmail: "news@bench.example", ...o }, "done").then((m) => m.result);
    const sinkStats = () => ask<SinkStats>(sink.proc, { type: "stats" }, "stats");

    // Warm-up: JIT, pools, caches; drained before the measurement starts.
    if (warmup > 0) {
      const w = await run({ tag: "warm", connections, seconds: warmup });
      await untilFinal(pool, account.accountId, w.ids, 120_000, 500);
    }

    // 1. Main phase: once, or interleaved with the Postfix reference (postfix, mailroom, postfix, mailroom, …).
    const cpuOf = () => {
      const roles = cpuByRole(topology!.processes());
      return { ...roles, sink: readStat(sink.proc.pid!)?.cpuMs ?? NaN, load: readStat(load.proc.pid!)?.cpuMs ?? NaN };
    };
    const mainPhase = async () => {
      const wal0 = await walPosition(pool);
      const xact0 = await transactions(pool);
      const sink0 = await sinkStats();
      const cpu0 = cpuOf();
      const faults0 = faultsByRole(topology!.processes());
      const counter = startSystemCounter();
      const memory = memorySampler(topology!, { sink: sink.proc.pid!, load: load.proc.pid! });
      const main = await run({ tag: "main", connections, seconds, ...(rate && { rate }) });
      const drained = await untilFinal(pool, account.accountId, main.ids, Number(args["drain-timeout"]) * 1000, 200);
      const cpu1 = cpuOf();
      const work = await counter.stop();
      const faults1 = faultsByRole(topology!.processes());
      const wal1 = await walPosition(pool);
      const xact1 = await transactions(pool);
      const peaks = memory.stop();
      const sink1 = await sinkStats();
      const latency = await deliveryLatencies(pool, account.accountId, main.ids);
      const slow = await slowDeliveries(pool, account.accountId, main.ids, 10_000);
      const accepted = main.ids.length;
      const delivered = drained.counts.delivered;
      const loadSeconds = (main.lastAt - main.firstAt) / 1000;
      const wholeSeconds = (latency.lastDeliveredAt - main.firstAt) / 1000;
      const duringLoad = latency.deliveredAt.filter((t) => t <= main.lastAt).length;
      const post = [...main.latenciesMs].sort((a, b) => a - b);
      const cpuPerMessage = Object.fromEntries(
        Object.entries(cpu1).map(([role, v]) => [role, (v - cpu0[role as keyof typeof cpu0]) / Math.max(1, delivered)]),
      ) as Record<keyof typeof cpu1, number>;
      const cpuTotal = Object.values(cpuPerMessage).reduce((s, v) => s + v, 0);
      const appLabel = topology!.processes().some((p) => p.role === "workers") ? "app (API)" : "app (API + inline workers)";
      const figures = {
        accepted,
        acceptedPerSecond: accepted / loadSeconds,
        delivered,
        deliveredPerSecondWholeRun: delivered / wholeSeconds,
        deliveredPerSecondDuringLoad: duringLoad / loadSeconds,
        drainedSecondsAfterLoad: (latency.lastDeliveredAt - main.lastAt) / 1000,
        post: { p50: pct(post, 50), p99: pct(post, 99), p999: pct(post, 99.9), max: pct(post, 100) },
        acceptedToDelivered: { p50: pct(latency.ms, 50), p99: pct(latency.ms, 99), max: pct(latency.ms, 100) },
        deliveredAfterOver10s: slow.count,
        cpuMsPerMessage: cpuPerMessage,
        cpuMsPerMessageTotal: cpuTotal,
        walBytesPerMessage: (wal1.bytes - wal0.bytes) / Math.max(1, delivered),
        walFullPageImagesPerMessage: (wal1.fullPageImages - wal0.fullPageImages) / Math.max(1, delivered),
        walRecordsPerMessage: (wal1.records - wal0.records) / Math.max(1, delivered),
        transactionsPerMessage: (xact1 - xact0) / Math.max(1, delivered),
        work,
        pageFaultsPerMessageByRole: Object.fromEntries(Object.entries(faults1).map(([role, v]) => [role, (v - faults0[role as keyof typeof faults0]) / Math.max(1, delivered)])),
        peakMemoryKb: peaks,
        sinkMessages: sink1.messages - sink0.messages,
        non200: main.statuses,
        errors: main.errors,
      };
      console.log(`
main phase: ${connections} connections × ${seconds} s${rate ? `, paced to ${rate}/s offered` : ""}, ~2 KB HTML, one recipient each, ${warmup} s warm-up before (not counted)
  accepted            ${accepted} in ${loadSeconds.toFixed(1)} s = ${figures.acceptedPerSecond.toFixed(0)}/s (non-200: ${JSON.stringify(main.statuses)}, no answer: ${main.errors})
  delivered           ${delivered} = ${figures.deliveredPerSecondWholeRun.toFixed(0)}/s over the whole run (first POST → last delivery ${wholeSeconds.toFixed(1)} s); ${figures.deliveredPerSecondDuringLoad.toFixed(0)}/s during the load
  drained             ${drained.done ? `${figures.drainedSecondsAfterLoad.toFixed(1)} s after the last POST answer` : `NOT within ${args["drain-timeout"]} s: ${describeReconciliation(drained.counts)}`}; the sink got ${figures.sinkMessages} messages
  POST /email         p50 ${ms(figures.post.p50)}, p99 ${ms(figures.post.p99)}, p99.9 ${ms(figures.post.p999)}, max ${ms(figures.post.max)}
  accepted→delivered  p50 ${ms(figures.acceptedToDelivered.p50)}, p99 ${ms(figures.acceptedToDelivered.p99)}, max ${ms(figures.acceptedToDelivered.max)}${slow.count ? `\n  over 10 s           ${slow.count}; slowest: ${slow.slowest.map((d) => `${d.messageId} ${ms(d.ms)}, ${d.attempts} attempt(s) [${d.history ?? "none recorded"}]`).join(" | ")}` : ""}
  CPU ms/message      ${appLabel} ${cpuPerMessage.app.toFixed(2)}, worker processes ${cpuPerMessage.workers.toFixed(2)}, PostgreSQL ${cpuPerMessage.postgres.toFixed(2)}, other children ${cpuPerMessage.other.toFixed(2)}, sink ${cpuPerMessage.sink.toFixed(2)}, load ${cpuPerMessage.load.toFixed(2)}; total ${cpuTotal.toFixed(2)}
  WAL                 ${(figures.walBytesPerMessage / 1024).toFixed(1)} KB and ${figures.walRecordsPerMessage.toFixed(0)} records per message, of them ${figures.walFullPageImagesPerMessage.toFixed(1)} full-page images; ${figures.transactionsPerMessage.toFixed(1)} SQL transactions per message
  work                ${describeCounts(work, delivered)}
  page faults/message ${Object.entries(figures.pageFaultsPerMessageByRole).map(([role, v]) => `${role} ${v.toFixed(1)}`).join(", ")}
  peak memory         ${Object.entries(peaks).map(([k, v]) => `${k} ${mb(v)}`).join("; ")}`);
      if (mxRig) {
        // What TLS policy the copies went under: an enforce run that shows "opportunistic" measured nothing.
        const { rows } = await pool.query<{ verdict: string; n: number }>(
          "SELECT concat_ws(' ', tls->>'policy', tls->>'mode', CASE WHEN (tls->>'verified')::boolean THEN 'verified' ELSE 'unverified' END) AS verdict, count(*)::int AS n FROM delivery_attempts GROUP BY 1 ORDER BY 2 DESC",
        );
        console.log(`  TLS verdicts        ${rows.map((r) => `${r.verdict}: ${r.n}`).join(", ")}`);
      }
      // 429s are the backlog's pushback (docs/contract.md §18), not a loss: what was accepted must be final.
      const ok = drained.done && drained.counts.inDatabase === accepted && drained.counts.finalEvents === drained.counts.finalRecipients;
      return { figures, ok };
    };

    const idleSeconds = Number(args.idle);
    if (idleSeconds > 0) {
      const before = cpuOf();
      await sleep(idleSeconds * 1000);
      const after = cpuOf();
      const perSecond = Object.entries(after).map(([role, v]) => `${role} ${((v - before[role as keyof typeof before]) / idleSeconds).toFixed(1)}`);
      console.log(`\nidle ${idleSeconds} s, no load: CPU ms per second ${perSecond.join(", ")}`);
    }

    let ok = true;
    const rounds: { reference?: ReferenceRound; mailroom: Awaited<ReturnType<typeof mainPhase>>["figures"] }[] = [];
    for (let i = 0; i < (against ? Number(args.rounds) : 1); i++) {
      const reference = against ? await runReferenceRound(against, i + 1, Number(args["postfix-messages"]), connections) : undefined;
      const m = await mainPhase();
      ok &&= m.ok;
      rounds.push({ reference, mailroom: m.figures });
    }
    if (against) printComparison(rounds.map((r) => ({ reference: r.reference!, mailroom: r.mailroom })));
    const figures = rounds.at(-1)!.mailroom;

    // 2. Fault phase.
    let faultFigures: Record<string, unknown> | undefined;
    if (fault) {
      const faultAccount = await createUnlimitedAccount(topology.databaseUrl(), "Fault", "fault.example");
      const faultConnections = Number(args["fault-connections"]);
      const sinkBefore = await sinkStats();
      const running = ask<{ result: PostLoadResult }>(
        load.proc,
        { type: "run", url: topology.url, apiKey: faultAccount.apiKey, html: BENCH_HTML, fromEmail: "news@fault.example", tag: "fault", connections: faultConnections, seconds: 600, stopOnError: true },
        "done",
      );
      await sleep(Number(args["kill-after"]) * 1000);
      const activeAtKill = await activeDeliverJobs(pool);
      await topology.kill();
      load.proc.send({ type: "stop" });
      const before = (await running).result;
      void pool.end().catch(() => {});
      const restartAt = Date.now();
      await topology.restart();
      const readySeconds = (Date.now() - restartAt) / 1000;
      pool = dbPool(topology.databaseUrl());
      // How many still wait 30 s after the restart (the job lease, ADR 0021, returns a dead worker's jobs by then).
      let pendingAt30s: number | undefined;
      const recovered = await untilFinal(pool, faultAccount.accountId, before.ids, Number(args["recovery-timeout"]) * 1000, 250, (pending, at) => {
        if (pendingAt30s === undefined && at - restartAt >= 30_000) pendingAt30s = pending;
      });
      const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM messages WHERE account_id = $1", [faultAccount.accountId]);
      const sinkAfter = await sinkStats();
      const c = recovered.counts;
      const recoverySeconds = (recovered.at - restartAt) / 1000;
      faultFigures = {
        connections: faultConnections,
        acceptedBeforeKill: before.ids.length,
        deliverJobsActiveJustBeforeKill: activeAtKill,
        unansweredAtKill: before.errors,
        committedWithoutAnswer: rows[0]!.n - before.ids.length,
        readySeconds,
        notFinal30sAfterRestart: pendingAt30s ?? 0,
        recovered: recovered.done,
        recoverySeconds: recovered.done ? recoverySeconds : null,
        counts: c,
        lost: c.accepted - c.inDatabase,
        sinkRedeliveries: sinkAfter.recipients - sinkAfter.distinctRecipients - (sinkBefore.recipients - sinkBefore.distinctRecipients),
      };
      console.log(`
fault phase: ${faultConnections} connections; SIGKILL of the whole process group (app, workers, embedded PostgreSQL) after ${args["kill-after"]} s; restart on the same data directory
  accepted before the kill  ${before.ids.length} (200 received; deliver jobs active just before the kill: ${activeAtKill}; requests cut by the kill: ${before.errors}; ${faultFigures.committedWithoutAnswer as number} more committed whose answer was lost)
  restart → app ready       ${readySeconds.toFixed(1)} s
  restart → all final       ${recovered.done ? `${recoverySeconds.toFixed(1)} s` : `NOT within ${args["recovery-timeout"]} s`} (recipients of the account still queued or deferred 30 s after the restart: ${pendingAt30s ?? 0})
  reconciliation            ${describeReconciliation(c)}; sink redeliveries ${faultFigures.sinkRedeliveries as number}`);
      ok &&= recovered.done && c.inDatabase === c.accepted && c.finalEvents === c.finalRecipients;
    }
    console.log(`\nload average at the end ${loadavg()} (at the start ${started.loadavg}; ${os.cpus().length} cores)`);
    if (args.json) console.log(JSON.stringify({ started, connections, seconds, rate: rate ?? null, warmup, workers: workersMode, dashboard: topology.dashboard, main: figures, ...(against && { rounds }), fault: faultFigures, endLoadavg: loadavg() }, null, 2));
    await pool.end().catch(() => {});
    await cleanup();
    if (!ok) {
      console.error("FAILED: something accepted was lost, finalised twice or not finalised in time");
      process.exit(1);
    }
    process.exit(0);
  } catch (err) {
    if (topology) console.error(`app output:\n${topology.output()}`);
    await cleanup();
    throw err;
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
