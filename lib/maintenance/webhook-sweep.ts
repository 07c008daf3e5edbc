import { sweepOverdue } from "../webhooks/notification-store";
import type { MaintenanceJob } from "./maintenance-job";

/** How overdue a pending notification must be before it gets a new job (its job was lost, or its worker died holding the claim). */
export const WEBHOOK_OVERDUE_MS = 60_000;

/** Pending notifications overdue by a minute get a new job; every minute and at start. */
export const webhookSweep: MaintenanceJob = {
  name: "maintenance-webhook-sweep",
  cron: "* * * * *",
  runAtStart: true,
  run: async (ctx) => ({ requeuedNotifications: await sweepOverdue(ctx.database, ctx.boss, WEBHOOK_OVERDUE_MS) }),
};
