import PgBoss from "pg-boss";
import { deliverQueue, notifyQueue, type QueueSpec, type RetryPolicy } from "./jobs";

export type { PgBoss };
/** A connection pg-boss runs its statements on (a transaction's client, a prepared-statement adapter). */
export type QueueDb = PgBoss.Db;

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
  // Created here so that a process without workers can enqueue; the workers' start applies the full policy.
  for (const spec of [deliverQueue, notifyQueue]) {
    if (!(await boss.getQueue(spec.name))) await boss.createQueue(spec.name, { name: spec.name, ...spec.policy });
  }
  return boss;
}

/** Creates a queue, or brings an existing one to `policy` (jobs take the queue's policy when enqueued). */
export async function applyQueuePolicy(boss: PgBoss, name: string, policy: RetryPolicy): Promise<void> {
  const queue: PgBoss.Queue = { name, ...policy };
  if (await boss.getQueue(name)) await boss.updateQueue(name, queue);
  else await boss.createQueue(name, queue);
}

export interface EnqueueOptions {
  /** Not before this time (a Date, or an interval relative to the database's clock such as "5 seconds"). */
  startAfter?: Date | string;
  /** Run the insert on this connection (inside the caller's transaction). */
  db?: QueueDb;
}

/** Enqueues one job; the payload is checked against the queue's schema first (a defect, not user input, when it fails). */
export async function enqueue<T extends object>(boss: PgBoss, spec: QueueSpec<T>, payload: T, options: EnqueueOptions = {}): Promise<void> {
  await enqueueMany(boss, spec, [{ payload, startAfter: options.startAfter }], options.db);
}

/** Enqueues several jobs of one queue in one statement. */
export async function enqueueMany<T extends object>(
  boss: PgBoss,
  spec: QueueSpec<T>,
  jobs: { payload: T; startAfter?: Date | string }[],
  db?: QueueDb,
): Promise<void> {
  if (jobs.length === 0) return;
  const rows: PgBoss.JobInsert<T>[] = jobs.map((j) => ({
    name: spec.name,
    data: spec.schema.parse(j.payload),
    ...(j.startAfter !== undefined && { startAfter: j.startAfter }),
  }));
  await boss.insert(rows, db ? { db } : {});
}
