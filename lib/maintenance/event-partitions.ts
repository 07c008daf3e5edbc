import { maintainDayPartitions } from "../domain/partitions/day-partitions";
import { maintainEventPartitions } from "../domain/partitions/event-partitions";
import type { MaintenanceJob } from "./maintenance-job";

/**
 * Day partitions made ahead, and rows of the default partitions moved to their
 * day: of `events` (docs/adr/0030) and of the other day-partitioned tables
 * (docs/adr/0040). Hourly and at each start.
 */
export const eventPartitions: MaintenanceJob = {
  name: "maintenance-event-partitions",
  cron: "7 * * * *",
  runAtStart: true,
  run: async (ctx, now) => ({ ...(await maintainEventPartitions(ctx.database, now)), ...(await maintainDayPartitions(ctx.database, now)) }),
};
