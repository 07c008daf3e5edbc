import type { EventType } from "../../contract/events";
import { emptyCounts, MAX_BREAKDOWN_ROWS, type BreakdownRates, type BreakdownRow, type EventCounts, type StatsBreakdownBy } from "../../contract/stats";
import { providerOf } from "./providers";

/**
 * A breakdown's rows from the summaries' counts (docs/adr/0517), pure: per value (a recipient
 * domain's provider when `by` is provider), this period and the previous one, with rates;
 * largest accepted first, at most MAX_BREAKDOWN_ROWS values and one "" row for the rest.
 */

export interface ValueCount {
  value: string;
  type: EventType;
  n: number;
}

export function breakdownRates(c: EventCounts): BreakdownRates {
  const of = (n: number, d: number) => (d > 0 ? n / d : null);
  return {
    delivered: of(c.delivered, c.accepted),
    bounced: of(c.failed + c.rejected, c.accepted),
    complained: of(c.complained, c.delivered),
    opened: of(c.opened, c.delivered),
    clicked: of(c.clicked, c.delivered),
  };
}

function countsByValue(rows: readonly ValueCount[], by: StatsBreakdownBy): Map<string, EventCounts> {
  const out = new Map<string, EventCounts>();
  for (const r of rows) {
    const value = by === "provider" && r.value !== "" ? providerOf(r.value) : r.value;
    let c = out.get(value);
    if (!c) out.set(value, (c = emptyCounts()));
    if (r.type in c) c[r.type] += r.n;
  }
  return out;
}

function add(into: EventCounts, c: EventCounts): void {
  for (const k of Object.keys(into) as EventType[]) into[k] += c[k];
}

export function breakdownRows(current: readonly ValueCount[], previous: readonly ValueCount[], by: StatsBreakdownBy, max = MAX_BREAKDOWN_ROWS): BreakdownRow[] {
  const now = countsByValue(current, by);
  const before = countsByValue(previous, by);
  // Values of the previous period alone still show (their counts fell to zero).
  const values = [...new Set([...now.keys(), ...before.keys()])].filter((v) => v !== "");
  values.sort((a, b) => (now.get(b)?.accepted ?? 0) - (now.get(a)?.accepted ?? 0) || (before.get(b)?.accepted ?? 0) - (before.get(a)?.accepted ?? 0) || (a < b ? -1 : 1));
  const kept = values.slice(0, max);
  const rest = { now: now.get("") ?? emptyCounts(), before: before.get("") ?? emptyCounts() };
  for (const v of values.slice(max)) {
    add(rest.now, now.get(v) ?? emptyCounts());
    add(rest.before, before.get(v) ?? emptyCounts());
  }
  const row = (value: string, c: EventCounts, p: EventCounts): BreakdownRow => ({
    Value: value,
    Counts: c,
    Rates: breakdownRates(c),
    PreviousCounts: p,
    PreviousRates: breakdownRates(p),
  });
  const rows = kept.map((v) => row(v, now.get(v) ?? emptyCounts(), before.get(v) ?? emptyCounts()));
  const restSeen = [...Object.values(rest.now), ...Object.values(rest.before)].some((n) => n > 0);
  return restSeen ? [...rows, row("", rest.now, rest.before)] : rows;
}
