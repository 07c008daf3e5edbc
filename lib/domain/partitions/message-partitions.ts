import type { Database } from "../../storage/database";
import { DAY, dayPartitionHoldsRows, type DayPartition } from "../../storage/day-partitions";
import { messageDayHoldsWork } from "../../storage/message-day-rows";
import { dropPastDays } from "./day-partitions";
import { dropRecipientsDay } from "./recipient-partitions";

/**
 * Messages are partitioned by the day of created_at, and a message's
 * recipients (with their attempts and engagement windows) by the same day
 * (docs/adr/0044, 0043). A messages' day table older than the longest
 * retention of any account goes whole, with the recipients' day tables of its
 * date dropped first, unless one of its recipients is still queued or
 * deferred or one of its messages is still scheduled (it waits for them).
 * The legacy table (the messages from before the upgrade) goes once the
 * row-level purge has emptied it. Oldest first, each DETACH and DROP waiting at
 * most 50 ms for its lock; one that waits is tried again at the next run.
 */

const TABLE = "messages";

/** `messages_p20261129` → `message_recipients_p20261129`. */
function recipientsDayOf(messagesPartition: string): string {
  return `message_recipients${messagesPartition.slice(TABLE.length)}`;
}

function isDayTable(p: DayPartition): p is DayPartition & { lower: number; upper: number } {
  return p.lower !== null && p.upper !== null;
}

export async function dropPastMessageDays(database: Database, now: Date, longestRetention: number) {
  const before = Math.floor(now.getTime() / 1000) - longestRetention * DAY;
  const { dropped, waiting } = await dropPastDays(
    database,
    TABLE,
    {
      mayDrop: async (p) => {
        if (!isDayTable(p)) return !(await dayPartitionHoldsRows(database, TABLE, p.name));
        return p.upper <= before && !(await messageDayHoldsWork(database, p));
      },
      beforeDrop: async (name) => {
        if (!name.endsWith("_legacy")) await dropRecipientsDay(database, recipientsDayOf(name));
        return 0;
      },
    },
    now,
  );
  return { messagePartitionsDropped: dropped, messagePartitionsWaiting: waiting };
}
