import type { Database } from "../../storage/database";
import { dayPartitionHoldsRows, dropDayPartition, partitionState } from "../../storage/day-partitions";
import { dropPastDays } from "./day-partitions";

/**
 * A message's recipients are partitioned by the day of their id, and their
 * delivery attempts and engagement windows by the same day of their
 * recipient_id (docs/adr/0043). Rows go with their message (retention deletes
 * messages past it; the foreign keys cascade), so a past day's tables empty
 * out; this drops the recipients' day tables that are empty, with the
 * tracking tables of the same day first (empty too: each of their rows names
 * a recipient of that day). Oldest first, each DETACH and DROP waiting at most
 * 50 ms for its lock; one that waits is tried again at the next run.
 */

const TABLE = "message_recipients";
const TRACKING = ["delivery_attempts", "engagement_windows"] as const;

/** `message_recipients_p20261129` → `delivery_attempts_p20261129` (and `_legacy` likewise). */
function trackingTwin(recipientsPartition: string, table: (typeof TRACKING)[number]): string {
  if (!recipientsPartition.startsWith(`${TABLE}_`)) throw new Error(`not a partition of ${TABLE}: ${recipientsPartition}`);
  return `${table}${recipientsPartition.slice(TABLE.length)}`;
}

async function dropTrackingTwins(database: Database, recipientsPartition: string): Promise<number> {
  for (const table of TRACKING) {
    const twin = trackingTwin(recipientsPartition, table);
    const state = await partitionState(database, table, twin);
    if (state !== "missing") await dropDayPartition(database, table, twin, state === "detached");
  }
  return 0;
}

/**
 * Drops the recipients' day table `recipientsPartition` (attached, left
 * detached, or already gone) with the tracking tables of its day first: what
 * goes with a messages' day table of the same date (lib/domain/partitions/message-partitions.ts).
 */
export async function dropRecipientsDay(database: Database, recipientsPartition: string): Promise<void> {
  await dropTrackingTwins(database, recipientsPartition);
  const state = await partitionState(database, TABLE, recipientsPartition);
  if (state !== "missing") await dropDayPartition(database, TABLE, recipientsPartition, state === "detached");
}

export async function dropEmptyRecipientDays(database: Database, now: Date) {
  const { dropped, waiting } = await dropPastDays(
    database,
    TABLE,
    {
      mayDrop: async (p) => !(await dayPartitionHoldsRows(database, TABLE, p.name)),
      beforeDrop: (name) => dropTrackingTwins(database, name),
    },
    now,
  );
  return { recipientPartitionsDropped: dropped, recipientPartitionsWaiting: waiting };
}
