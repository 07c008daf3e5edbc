import { STATS_BREAKDOWNS, type BreakdownRates, type BreakdownRow, type StatsBreakdownBy } from "@/lib/contract/stats";

/**
 * The overview's breakdown table, pure (docs/adr/0517): which dimension the URL asks for,
 * each row's sent count and rates with their change against the previous period, and the
 * order a column's header sets.
 */

export const BREAKDOWN_LABELS: Record<StatsBreakdownBy, string> = {
  tag: "Tag",
  provider: "Provider",
  recipientDomain: "Recipient domain",
  senderDomain: "Sender domain",
};

export function parseBreakdownBy(value: string | undefined): StatsBreakdownBy {
  return (STATS_BREAKDOWNS as readonly string[]).includes(value ?? "") ? (value as StatsBreakdownBy) : "tag";
}

export type RateKey = keyof BreakdownRates;
export const RATE_COLUMNS: Array<{ key: RateKey; label: string; higherIsBetter: boolean }> = [
  { key: "delivered", label: "Delivered", higherIsBetter: true },
  { key: "bounced", label: "Bounce", higherIsBetter: false },
  { key: "complained", label: "Complaint", higherIsBetter: false },
  { key: "opened", label: "Open", higherIsBetter: true },
  { key: "clicked", label: "Click", higherIsBetter: true },
];

export type SortKey = "value" | "sent" | RateKey;
export interface Sort {
  key: SortKey;
  descending: boolean;
}
export const DEFAULT_SORT: Sort = { key: "sent", descending: true };

export interface BreakdownLine {
  value: string;
  /** "" (the rest of the values) is named "Other". */
  label: string;
  sent: number;
  previousSent: number;
  /** Relative change of sent (0.25 = +25 %), undefined when nothing was sent before. */
  sentChange?: number;
  rates: BreakdownRates;
  /** Change of each rate in percentage points, undefined when either period has no rate. */
  changes: Record<RateKey, number | undefined>;
}

export function breakdownLines(rows: readonly BreakdownRow[]): BreakdownLine[] {
  return rows.map((r) => {
    const changes = Object.fromEntries(
      RATE_COLUMNS.map(({ key }) => {
        const now = r.Rates[key];
        const before = r.PreviousRates[key];
        return [key, now !== null && before !== null ? (now - before) * 100 : undefined];
      }),
    ) as Record<RateKey, number | undefined>;
    const sent = r.Counts.accepted;
    const previousSent = r.PreviousCounts.accepted;
    return {
      value: r.Value,
      label: r.Value === "" ? "Other" : r.Value,
      sent,
      previousSent,
      sentChange: previousSent > 0 ? (sent - previousSent) / previousSent : undefined,
      rates: r.Rates,
      changes,
    };
  });
}

/** Sorted by the column; rows without a rate last either way; "Other" (the rest) always last. */
export function sortLines(lines: readonly BreakdownLine[], sort: Sort): BreakdownLine[] {
  const sign = sort.descending ? -1 : 1;
  const keyOf = (l: BreakdownLine): string | number | null => (sort.key === "value" ? l.label.toLowerCase() : sort.key === "sent" ? l.sent : l.rates[sort.key]);
  return [...lines].sort((a, b) => {
    if ((a.value === "") !== (b.value === "")) return a.value === "" ? 1 : -1;
    const x = keyOf(a);
    const y = keyOf(b);
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    return (x < y ? -1 : x > y ? 1 : 0) * sign || (a.label < b.label ? -1 : 1);
  });
}

/** A header's click: the same column flips its order, another starts descending (names ascending). */
export function nextSort(current: Sort, key: SortKey): Sort {
  return current.key === key ? { key, descending: !current.descending } : { key, descending: key !== "value" };
}
