import type { Breakdown, StatsBreakdownBy } from "../../contract/stats";
import { selectBreakdownCounts, type BreakdownDimension } from "../../storage/event-breakdown-rows";
import { breakdownRows } from "./breakdown-table";
import type { EventReads } from "./event-counts";

/**
 * GET /stats?By= (docs/adr/0517): a range's counts per tag, recipient domain, provider or
 * sender domain against the previous period of the same length, read from the hourly
 * breakdowns only (never the event log), so it counts up to the roll-up's point.
 */

const DIMENSION: Record<StatsBreakdownBy, BreakdownDimension> = {
  tag: "tag",
  recipientDomain: "recipientDomain",
  provider: "recipientDomain",
  senderDomain: "senderDomain",
};

export async function eventBreakdown(
  { database, rollups }: EventReads,
  accountId: string,
  q: { startDate: number; endDate: number; by: StatsBreakdownBy },
  onError: (err: unknown) => void = () => {},
): Promise<Breakdown> {
  const dimension = DIMENSION[q.by];
  const span = q.endDate - q.startDate + 1;
  const previous = { startDate: q.startDate - span, endDate: q.startDate - 1 };
  const [now, before] = await Promise.all([
    selectBreakdownCounts(database, { accountId, dimension, from: q.startDate, to: q.endDate }),
    selectBreakdownCounts(database, { accountId, dimension, from: previous.startDate, to: previous.endDate }),
  ]);
  rollups.schedule(accountId, { rolledUntil: now.ru, oldest: now.oldest }, onError);
  return {
    By: q.by,
    SummarisedUntil: Math.min(now.ru, q.endDate + 1),
    PreviousStartDate: previous.startDate,
    PreviousEndDate: previous.endDate,
    Rows: breakdownRows(now.counts, before.counts, q.by),
  };
}
