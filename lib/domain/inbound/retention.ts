import type { Database } from "../../storage/database";
import { DAY, detachedDayPartitions, dropDayPartition, listDayPartitions } from "../../storage/day-partitions";
import { DAYS_BEHIND } from "../event-partitions";
import { deleteAttemptsOfInboundPartition, inboundPartitionHoldsUnexpired, purgeExpiredInbound } from "../../storage/inbound-rows";
import { LOCK_NOT_AVAILABLE } from "../../storage/sqlstate";

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
  const nowSeconds = Math.floor(now.getTime() / 1000);
  let inboundMessages = 0;
  let inboundPartitionsDropped = 0;
  let inboundPartitionsWaiting = 0;
  for (const name of await detachedDayPartitions(database, TABLE)) {
    inboundMessages += await deleteAttemptsOfInboundPartition(database, name);
    await dropDayPartition(database, TABLE, name, true);
    inboundPartitionsDropped++;
  }
  for (const p of await listDayPartitions(database, TABLE)) {
    // The days behind now are made again hourly (lib/domain/day-partitions.ts): an empty one is kept, not dropped and made again.
    if (p.upper === null || p.upper > nowSeconds - DAYS_BEHIND * DAY) continue;
    if (inboundPartitionsWaiting > 0) {
      inboundPartitionsWaiting++;
      continue;
    }
    if (await inboundPartitionHoldsUnexpired(database, p.name, now)) continue; // thinned below until its last message expires
    const held = await deleteAttemptsOfInboundPartition(database, p.name);
    try {
      await dropDayPartition(database, TABLE, p.name);
      inboundMessages += held;
      inboundPartitionsDropped++;
    } catch (err) {
      if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw err;
      inboundPartitionsWaiting++; // its messages are deleted one by one below; the empty table goes next run
    }
  }
  for (;;) {
    const n = await purgeExpiredInbound(database, now, 500);
    inboundMessages += n;
    if (n < 500) break;
  }
  return { inboundMessages, inboundPartitionsDropped, inboundPartitionsWaiting };
}
