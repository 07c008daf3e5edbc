import { spawn } from "node:child_process";
import pg from "pg";
import path from "node:path";
import pino from "pino";
import { Registry } from "prom-client";
import { createAppMetrics } from "../../lib/metrics";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startQueue, type PgBoss } from "../../lib/queue/boss";
import { LEASE_LOCK_CLASS, startJobLeaseKeeper, type JobLeaseKeeper } from "../../lib/queue/job-lease";
import { fetchLeasedJobs } from "../../lib/storage/job-rows";
import { openDatabase, type Database } from "../../lib/storage/database";
import { waitFor } from "../support/processes";
import { createTestDatabase } from "../support/test-database";

/**
 * Job leases (ADR 0021): a worker holds its jobs by a lease (lib/queue/job-lease.ts).
 * The worker that dies here is a real process killed with SIGKILL.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const log = pino({ level: "silent" });
const QUEUE = "lease-test";

describe("job leases", () => {
  let url: string;
  let database: Database;
  let boss: PgBoss;
  const keepers: JobLeaseKeeper[] = [];

  beforeAll(async () => {
    url = await createTestDatabase();
    database = openDatabase(url, { max: 4 });
    boss = await startQueue(url, { max: 2 });
    // An hour-long expiry: nothing here may come back through pg-boss's expiry.
    await boss.createQueue(QUEUE, { name: QUEUE, retryLimit: 3, retryDelay: 60, expireInSeconds: 3600 });
  });
  // Each test starts from an empty queue and no live keeper: it sees only its own jobs and workers.
  beforeEach(async () => {
    for (const k of keepers.splice(0)) await k.stop().catch(() => {});
    await database.pool.query("DELETE FROM pgboss.job WHERE name = $1", [QUEUE]);
  });
  afterAll(async () => {
    for (const k of keepers) await k.stop().catch(() => {});
    await boss?.stop({ graceful: false });
    await database?.close();
  });

  const keeper = async (options: Partial<Parameters<typeof startJobLeaseKeeper>[1]> = {}) => {
    const k = await startJobLeaseKeeper(url, { log, register: true, role: "test", ...options });
    keepers.push(k);
    return k;
  };
  const job = async (id: string) =>
    (
      await database.pool.query<{ state: string; retry_count: number; started_on: Date | null; output: Record<string, unknown> | null }>(
        "SELECT state, retry_count, started_on, output FROM pgboss.job WHERE name = $1 AND id = $2",
        [QUEUE, id],
      )
    ).rows[0]!;
  const reclaimedTotal = async () => (await database.pool.query<{ n: number }>("SELECT coalesce(sum(jobs), 0)::int AS n FROM queue_reclaims WHERE queue = $1", [QUEUE])).rows[0]!.n;

  /** A worker process that fetched `count` jobs under its lease; resolves with their ids and a SIGKILL. */
  async function workerHolding(count: number) {
    const child = spawn(process.execPath, ["--import", "tsx", "test/support/lease-holder.ts"], {
      cwd: ROOT,
      env: { ...process.env, LEASE_DB_URL: url, LEASE_QUEUE: QUEUE, LEASE_FETCH: String(count) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const ids = await waitFor("the worker fetched its jobs", async () => {
      if (child.exitCode !== null) throw new Error(out);
      const m = /fetched (\S*)/.exec(out);
      return m ? m[1]!.split(",").filter(Boolean) : undefined;
    });
    const exited = new Promise((r) => child.once("exit", r));
    return {
      ids,
      kill: async () => {
        child.kill("SIGKILL");
        await exited;
      },
    };
  }

  it("returns the jobs of a worker killed with SIGKILL to the queue once its lock is gone, whatever their expiry", async () => {
    const ids = [await boss.send(QUEUE, { n: 1 }), await boss.send(QUEUE, { n: 2 })];
    const worker = await workerHolding(2);
    expect(worker.ids.sort()).toEqual([...ids].sort());
    expect((await job(ids[0]!)).state).toBe("active");
    const before = await reclaimedTotal();

    // A live process that only reclaims (the HTTP process in `process` mode), beating every 200 ms. Its dead-after
    // is an hour, like the queue's expiry: only the freed advisory lock can tell it the worker died. The bound is
    // generous, not a speed test: usually 0.2 s here, once 4.1 s in a loaded CI run (2 s was once the bound).
    await keeper({ register: false, heartbeatMs: 200, deadAfterMs: 3_600_000 });
    await worker.kill();
    const killedAt = Date.now();
    await waitFor("both jobs back in the queue", async () => (await Promise.all(ids.map((id) => job(id!)))).every((j) => j.state === "retry"), 30_000, 50);
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    expect(await reclaimedTotal()).toBe(before + 2);
    // The metric any process's /metrics reports, read from the database.
    const registry = new Registry();
    createAppMetrics(registry, database);
    expect(await registry.metrics()).toContain(`mailroom_queue_jobs_reclaimed_total{queue="${QUEUE}"} ${before + 2}`);
    const back = await job(ids[0]!);
    expect(back.output).toMatchObject({ reclaimedFrom: expect.any(Number) });

    // Fetchable at once by another worker, the retry counted (it may have run: at-least-once).
    const other = await keeper();
    const again = await fetchLeasedJobs(boss.getDb(), QUEUE, 10, other.leaseId()!);
    expect(again.map((j) => j.id).sort()).toEqual([...ids].sort());
    expect((await job(ids[0]!)).retry_count).toBe(1);
    await other.stop();
    // A clean stop released them: due again, no retry counted for the release.
    const released = await job(ids[0]!);
    expect(released).toMatchObject({ state: "retry", retry_count: 1, started_on: null });
  });

  it("at start, a process reclaims the jobs of workers that died before it fetches any", async () => {
    const id = await boss.send(QUEUE, { n: 3 });
    const worker = await workerHolding(1);
    expect(worker.ids).toEqual([id]);
    await worker.kill(); // no other live process
    expect((await job(id!)).state).toBe("active"); // nobody has noticed yet

    const restarted = await keeper({ heartbeatMs: 60_000 });
    const fetched = await fetchLeasedJobs(boss.getDb(), QUEUE, 10, restarted.leaseId()!);
    expect(fetched.map((j) => j.id)).toEqual([id]);
  });

  it("is not fooled by the same lock held in another database of the server", async () => {
    const id = await boss.send(QUEUE, { n: 4 });
    const worker = await workerHolding(1);
    const lease = Number((await job(id!)).output?.lease);
    // Advisory locks belong to one database: another Mailroom (or another test file) on the same
    // server can hold the same (class, id) for a live worker of its own.
    const other = new URL(url);
    other.pathname = "/postgres";
    const elsewhere = new pg.Client({ connectionString: other.toString() });
    await elsewhere.connect();
    try {
      await elsewhere.query("SELECT pg_advisory_lock($1, $2)", [LEASE_LOCK_CLASS, lease]);
      await keeper({ register: false, heartbeatMs: 200, deadAfterMs: 3_600_000 });
      await worker.kill();
      await waitFor("the job back in the queue", async () => ((await job(id!)).state === "retry" ? true : undefined), 30_000, 50);
    } finally {
      await elsewhere.end();
    }
  });

  it("takes the jobs of a worker that holds its lock but has not beaten for the dead-after time, and that worker leases anew", async () => {
    const id = await boss.send(QUEUE, { n: 4 });
    // Stuck: alive (its lock held) but beating only every 1.5 s, while the reclaimer counts 0.5 s as dead.
    const stuck = await keeper({ heartbeatMs: 1500 });
    const firstLease = stuck.leaseId()!;
    expect((await fetchLeasedJobs(boss.getDb(), QUEUE, 1, firstLease)).map((j) => j.id)).toEqual([id]);
    await keeper({ register: false, heartbeatMs: 100, deadAfterMs: 500 });
    await waitFor("the stuck worker's job back in the queue", async () => (await job(id!)).state === "retry", 15_000, 50);
    await waitFor("the stuck worker registered again", async () => (stuck.leaseId() !== undefined && stuck.leaseId() !== firstLease) || undefined, 15_000, 50);
  });

  it("fails a reclaimed job that has no retries left instead of returning it", async () => {
    const id = await boss.send(QUEUE, { n: 5 }, { retryLimit: 0 });
    const worker = await workerHolding(1);
    await worker.kill();
    const reclaimer = await keeper({ register: false, heartbeatMs: 60_000 });
    expect(await reclaimer.reclaim()).toBe(0); // the start pass already took it
    expect((await job(id!)).state).toBe("failed");
  });
});
