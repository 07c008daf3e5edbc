import { purgeExpiredInboundMessages } from "../domain/inbound/messages";
import type { MaintenanceJob } from "./maintenance-job";

/** Received inbound messages (raw MIME, payload, attempts) are kept for MAILROOM_INBOUND_RETENTION (docs/contract.md §13.5); hourly purge. */
export const inboundRetention: MaintenanceJob = {
  name: "maintenance-inbound-retention",
  cron: "37 * * * *",
  runAtStart: true,
  run: async (ctx, now) => ({ inboundMessages: await purgeExpiredInboundMessages(ctx.database, now) }),
};
