import type { Database } from "../../storage/database";
import { dropPastDays } from "../partitions/day-partitions";
import { deleteAttemptsOfInboundPartition, inboundPartitionHoldsUnexpired, purgeExpiredInbound } from "../../storage/inbound-rows";

const TABLE = "inbound_messages";

/**
 * Received messages are kept until their `expires_at` (MAILROOM_INBOUND_RETENTION
 * at receipt, docs/contract.md §13.5). A day table of them (docs/adr/0041)
 * whose day has ended and whose every message has expired goes whole: its
 * messages' attempts are deleted (no foreign key carries them), then it is
 * detached and dropped, oldest first, each statement waiting at most 50 ms for
 * its lock (a drop not granted waits, with every newer day, for the next run).
 * Expired messages of the tables that stay are deleted in batches with their
 * attempts. `inboundMessages` counts both.
 */
export async function purgeExpiredInboundMessages(database: Database, now: Date) {
  const { dropped, waiting, heldRows } = await dropPastDays(
    database,
    TABLE,
    {
      mayDrop: async (p) => !(await inboundPartitionHoldsUnexpired(database, p.name, now)), // else thinned below until its last message expires
      beforeDrop: (name) => deleteAttemptsOfInboundPartition(database, name),
    },
    now,
  );
  // Also the messages of a day whose drop waits: none is readable past its ExpiresAt.
  let inboundMessages = heldRows;
  for (;;) {
    const n = await purgeExpiredInbound(database, now, 500);
    inboundMessages += n;
    if (n < 500) break;
  }
  return { inboundMessages, inboundPartitionsDropped: dropped, inboundPartitionsWaiting: waiting };
}
