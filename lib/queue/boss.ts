import type PgBossType from "pg-boss";
import { QUEUE } from "./jobs";

export type PgBoss = PgBossType;

/**
 * Starts pg-boss on the same database. pg-boss creates and migrates its own
 * schema under its own advisory lock. `supervise`/`schedule` run in every
 * process; pg-boss coordinates them through the database.
 */
export async function startQueue(
  url: string,
  options: { max?: number; onError?: (err: Error) => void; maintenanceIntervalSeconds?: number } = {},
): Promise<PgBoss> {
  // pg-boss 10 is CommonJS: the class is the module's default export.
  const mod = (await import("pg-boss")) as unknown as { default: typeof PgBossType; PgBoss?: typeof PgBossType };
  const Ctor = mod.PgBoss ?? mod.default;
  const boss = new Ctor({
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
  for (const name of Object.values(QUEUE)) {
    await boss.createQueue(name, { name, retryLimit: 10, retryDelay: 5, retryBackoff: true });
  }
  return boss;
}
