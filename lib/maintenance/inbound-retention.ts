import { purgeExpiredInboundMessages } from "../domain/inbound/retention";
import type { MaintenanceJob } from "./maintenance-job";

/** Received inbound messages (raw MIME, payload, attempts) are kept for MAILROOM_INBOUND_RETENTION (docs/contract.md §13.5); hourly purge, whole days dropped (docs/adr/0041). */
export const inboundRetention: MaintenanceJob = {
  name: "maintenance-inbound-retention",
  cron: "37 * * * *",
  runAtStart: true,
  run: (ctx, now) => purgeExpiredInboundMessages(ctx.database, now),
};
