import { purgeSignInFailures } from "../domain/staff/sign-in-throttle";
import type { MaintenanceJob } from "./maintenance-job";

/** Failed staff sign-ins older than the throttle's window count for nothing (docs/adr/0504). */
export const signInFailurePurge: MaintenanceJob = {
  name: "maintenance-sign-in-failures",
  cron: "21 * * * *",
  run: async (ctx, now) => ({ signInFailures: await purgeSignInFailures(ctx.database, now) }),
};
