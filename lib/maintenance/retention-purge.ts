import type { AppContext } from "../context";
import type { MaintenanceJob } from "./maintenance-job";
import { purgeDayPartitionedBefore } from "../domain/partitions/day-partitions";
import { accountRetentions } from "../storage/event-partitions";
import { longestRetentionDays, purgeEventsPastRetention } from "../domain/partitions/event-partitions";
import { dropPastMessageDays } from "../domain/partitions/message-partitions";
import { dropEmptyRecipientDays } from "../domain/partitions/recipient-partitions";
import { deleteDmarcReportsPastRetention } from "../storage/dmarc-rows";
import { deleteEventHourCountsPastRetention, deleteLimitCountersBefore, deleteMessagesPastRetention } from "../storage/retention-rows";

/**
 * Retention: events older than their account's retention period
 * (docs/contract.md §7.4), messages past retention whose recipients are all final and
 * that no remaining event shows (a late open keeps its message's headers),
 * sandbox captures older than MAILROOM_SANDBOX_RETENTION, rate-limit counters
 * of past windows, the hourly event-count summaries past retention, and the
 * DMARC aggregate reports of days past the account's retention (docs/adr/0809).
 * Deletes in batches so that no statement holds locks for long.
 * Events go by whole day partitions (lib/domain/partitions/event-partitions.ts, docs/adr/0031),
 * and so do sandbox captures (lib/domain/partitions/day-partitions.ts, docs/adr/0040) and
 * messages past the longest retention, with their recipients' and tracking
 * rows' day tables (lib/domain/partitions/message-partitions.ts, docs/adr/0044); a
 * recipients' day table emptied by its messages' deletes is dropped too
 * (lib/domain/partitions/recipient-partitions.ts, docs/adr/0043).
 */

export async function purgePastRetention(ctx: AppContext, now = new Date()) {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const { events, eventPartitionsDropped, eventPartitionsWaiting } = await purgeEventsPastRetention(ctx.database, nowSeconds);
  const longest = longestRetentionDays(await accountRetentions(ctx.database));
  const { messagePartitionsDropped, messagePartitionsWaiting } = await dropPastMessageDays(ctx.database, now, longest);
  const messages = await deleteMessagesPastRetention(ctx.database, now);
  const { recipientPartitionsDropped, recipientPartitionsWaiting } = await dropEmptyRecipientDays(ctx.database, now);
  const sandbox = await purgeDayPartitionedBefore(
    ctx.database,
    "sandbox_messages",
    Math.floor((now.getTime() - ctx.config.delivery.sandboxRetentionMs) / 1000),
    now,
  );
  // Windows are Unix seconds; the longest window is a day, keep two.
  const limitCounters = await deleteLimitCountersBefore(ctx.database, nowSeconds - 2 * 86400);
  const eventSummaries = await deleteEventHourCountsPastRetention(ctx.database, nowSeconds);
  const dmarcReports = await deleteDmarcReportsPastRetention(ctx.database, now);
  return {
    events,
    eventPartitionsDropped,
    eventPartitionsWaiting,
    messages,
    messagePartitionsDropped,
    messagePartitionsWaiting,
    recipientPartitionsDropped,
    recipientPartitionsWaiting,
    sandboxMessages: sandbox.rows,
    sandboxPartitionsDropped: sandbox.partitionsDropped,
    sandboxPartitionsWaiting: sandbox.partitionsWaiting,
    limitCounters,
    eventSummaries,
    dmarcReports,
  };
}

export const retentionPurge: MaintenanceJob = {
  name: "maintenance-retention",
  cron: "19 * * * *",
  run: purgePastRetention,
};
