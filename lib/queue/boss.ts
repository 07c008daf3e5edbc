import type pg from "pg";
import PgBoss from "pg-boss";
import { hasQueue, type QueueSpec, type RetryPolicy } from "../jobs/job-definition";
import { JOBS } from "../jobs/registry";
import { deliverQueue } from "../jobs/deliver";
import { ensureAccountTurnsIndex } from "../storage/job-rows";

export type { PgBoss };
/** A connection pg-boss runs its statements on (a transaction's client, a prepared-statement adapter). */
export type QueueDb = PgBoss.Db;

/**
 * pg-boss hands its options on to its pg.Pool (its types do not list these). A server that keeps
 * connections open but answers nothing must fail a new connection, which the job loops retry, rather
 * than hang it, and a silent host shows on an idle one (docs/adr/0514). No query timeout: pg-boss's own
 * maintenance statements may run long on a big job table.
 */
const QUEUE_POOL_OPTIONS: Pick<pg.PoolConfig, "connectionTimeoutMillis" | "keepAlive" | "keepAliveInitialDelayMillis"> = {
  connectionTimeoutMillis: 5_000,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
};

/**
 * Starts pg-boss on the same database. pg-boss creates and migrates its own
 * schema under its own advisory lock. `supervise`/`schedule` run in every
 * process; pg-boss coordinates them through the database.
 */
export async function startQueue(
  url: string,
  options: { max?: number; onError?: (err: Error) => void; maintenanceIntervalSeconds?: number } = {},
): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: url,
    max: options.max ?? 6,
    application_name: "mailroom-queue",
    ...QUEUE_POOL_OPTIONS,
    // A job whose worker died (SIGKILL) becomes fetchable again after this.
    expireInSeconds: 120,
    // Expired jobs (dead workers) are only noticed by pg-boss's maintenance pass.
    maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 30,
    retentionDays: 7,
    deleteAfterDays: 7,
    archiveCompletedAfterSeconds: 3600,
  });
  boss.on("error", (err: Error) => options.onError?.(err));
  await boss.start();
  // The queue of every job, created here so that a process without workers can enqueue; the workers' start
  // applies the configured policy (and the maintenance start creates the queues of its schedules).
  for (const job of JOBS.filter(hasQueue)) await ensureQueue(boss, { name: job.name, ...job.policy }, { update: false });
  await ensureTurnsIndex(boss, deliverQueue.name);
  return boss;
}

/** The deliver queue's index of account turns (lib/storage/job-rows.ts FETCH_BY_TURNS); processes starting together may race to make it. */
async function ensureTurnsIndex(boss: PgBoss, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await ensureAccountTurnsIndex(boss.getDb(), name);
      return;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= 5 || typeof code !== "string" || !CREATE_RACE_CODES.has(code)) throw err;
    }
  }
}

/** Creates a queue, or brings an existing one to `policy` (jobs take the queue's policy when enqueued). */
export async function applyQueuePolicy(boss: PgBoss, name: string, policy: RetryPolicy): Promise<void> {
  await ensureQueue(boss, { name, ...policy }, { update: true });
}

/**
 * SQLSTATEs of two processes creating one queue at the same moment: pg-boss's
 * create_queue creates the queue's partition table, and PostgreSQL aborts one
 * of the two with a deadlock (or a duplicate table or catalog key).
 */
const CREATE_RACE_CODES = new Set(["40P01", "42P07", "23505"]);

/**
 * Every process sets up its queues at start, and `npm start`'s worker
 * processes start together. The one that loses a creation race finds the
 * queue on its next pass and updates it instead (test/integration/queue-setup.test.ts).
 */
async function ensureQueue(boss: PgBoss, queue: PgBoss.Queue, options: { update: boolean }): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      if (!(await boss.getQueue(queue.name))) await boss.createQueue(queue.name, queue);
      else if (options.update) await boss.updateQueue(queue.name, queue);
      return;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= 5 || typeof code !== "string" || !CREATE_RACE_CODES.has(code)) throw err;
    }
  }
}

export interface EnqueueOptions {
  /** Not before this time (a Date, or an interval relative to the database's clock such as "5 seconds"). */
  startAfter?: Date | string;
  /** The job's key (a deliver job's account, enqueueMany). */
  key?: string;
  /** Run the insert on this connection (inside the caller's transaction). */
  db?: QueueDb;
}

/** Enqueues one job; the payload is checked against the queue's schema first (a defect, not user input, when it fails). */
export async function enqueue<T extends object>(boss: PgBoss, spec: QueueSpec<T>, payload: T, options: EnqueueOptions = {}): Promise<void> {
  await enqueueMany(boss, spec, [{ payload, startAfter: options.startAfter, key: options.key }], options.db);
}

/**
 * Enqueues one job unless a job with the same singleton key was sent in the
 * last `seconds` (pg-boss's singleton), e.g. a tick that every process
 * starting together asks for.
 */
export async function enqueueOnce<T extends object>(boss: PgBoss, spec: QueueSpec<T>, payload: T, singleton: { key: string; seconds: number }): Promise<void> {
  await boss.send(spec.name, spec.schema.parse(payload), { singletonKey: singleton.key, singletonSeconds: singleton.seconds });
}

/** Sends a job of the queue on a cron schedule (UTC); idempotent. */
export async function scheduleQueue<T extends object>(boss: PgBoss, spec: QueueSpec<T>, cron: string, payload: T): Promise<void> {
  await boss.schedule(spec.name, cron, spec.schema.parse(payload), { tz: "UTC" });
}

/** Enqueues several jobs of one queue in one statement. */
export async function enqueueMany<T extends object>(
  boss: PgBoss,
  spec: QueueSpec<T>,
  jobs: { payload: T; startAfter?: Date | string; key?: string }[],
  db?: QueueDb,
): Promise<void> {
  if (jobs.length === 0) return;
  const rows: PgBoss.JobInsert<T>[] = jobs.map((j) => ({
    name: spec.name,
    data: spec.schema.parse(j.payload),
    ...(j.startAfter !== undefined && { startAfter: j.startAfter }),
    // A deliver job's account: the key its fetch takes turns by (lib/storage/job-rows.ts). Its queue has no singleton policy.
    ...(j.key !== undefined && { singletonKey: j.key }),
  }));
  await boss.insert(rows, db ? { db } : {});
}
