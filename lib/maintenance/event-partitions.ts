import { maintainEventPartitions } from "../domain/event-partitions";
import type { MaintenanceJob } from "./maintenance-job";

/** Day partitions of `events` made ahead, and rows of the default partition moved to their day (docs/adr/0030): hourly and at each start. */
export const eventPartitions: MaintenanceJob = {
  name: "maintenance-event-partitions",
  cron: "7 * * * *",
  runAtStart: true,
  run: (ctx, now) => maintainEventPartitions(ctx.database, now),
};
