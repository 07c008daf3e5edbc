import { purgeIdempotencyKeys } from "../domain/sending/idempotency-keys";
import type { MaintenanceJob } from "./maintenance-job";

/** Idempotency-Key answers are kept 24 hours (docs/adr/0110); the hourly purge frees older keys. */
export const idempotencyKeyPurge: MaintenanceJob = {
  name: "maintenance-idempotency-keys",
  cron: "23 * * * *",
  run: async (ctx, now) => ({ idempotencyKeys: await purgeIdempotencyKeys(ctx.database, now) }),
};
