import { purgeWebhookHistory } from "../webhooks/retention";
import type { MaintenanceJob } from "./maintenance-job";

/** Finished webhook notifications past their account's retention, with their attempt log. */
export const webhookRetention: MaintenanceJob = {
  name: "maintenance-webhook-retention",
  cron: "41 * * * *",
  run: async (ctx, now) => ({ webhookNotifications: await purgeWebhookHistory(ctx.database, now) }),
};
