import { purgeWebhookHistory } from "../webhooks/retention";
import type { MaintenanceJob } from "./maintenance-job";

/** Finished webhook notifications past their account's retention, with their attempt log; whole days dropped (docs/adr/0042). */
export const webhookRetention: MaintenanceJob = {
  name: "maintenance-webhook-retention",
  cron: "41 * * * *",
  run: (ctx, now) => purgeWebhookHistory(ctx.database, now),
};
