import { describe, expect, it } from "vitest";
import { emptyCounts, type BreakdownRates, type BreakdownRow, type EventCounts } from "@/lib/contract/stats";
import { breakdownLines, nextSort, parseBreakdownBy, sortLines } from "./overview-breakdown";

// What GET /stats?By= answers (lib/domain/events/breakdown-table.ts).
const breakdownRates = (c: EventCounts): BreakdownRates => {
  const of = (n: number, d: number) => (d > 0 ? n / d : null);
  return { delivered: of(c.delivered, c.accepted), bounced: of(c.failed + c.rejected, c.accepted), complained: of(c.complained, c.delivered), opened: of(c.opened, c.delivered), clicked: of(c.clicked, c.delivered) };
};

const row = (Value: string, now: Partial<ReturnType<typeof emptyCounts>>, before: Partial<ReturnType<typeof emptyCounts>> = {}): BreakdownRow => {
  const Counts = { ...emptyCounts(), ...now };
  const PreviousCounts = { ...emptyCounts(), ...before };
  return { Value, Counts, Rates: breakdownRates(Counts), PreviousCounts, PreviousRates: breakdownRates(PreviousCounts) };
};

describe("breakdownLines", () => {
  it("gives each value its sent count and rates with their change in points against the previous period", () => {
    const [l] = breakdownLines([row("receipts", { accepted: 100, delivered: 90, failed: 10, opened: 45 }, { accepted: 50, delivered: 50, opened: 10 })]);
    expect(l!.sent).toBe(100);
    expect(l!.sentChange).toBe(1);
    expect(l!.rates.bounced).toBeCloseTo(0.1);
    expect(l!.changes.bounced).toBeCloseTo(10);
    expect(l!.changes.opened).toBeCloseTo(30);
    expect(l!.changes.delivered).toBeCloseTo(-10);
  });

  it("has no change where a period has no rate, and names the rest Other", () => {
    const [l] = breakdownLines([row("", { accepted: 3 })]);
    expect(l!.label).toBe("Other");
    expect(l!.sentChange).toBeUndefined();
    expect(l!.changes.delivered).toBeUndefined();
  });
});

describe("sortLines", () => {
  const lines = breakdownLines([
    row("b", { accepted: 10, delivered: 5, failed: 5 }),
    row("", { accepted: 99, delivered: 99 }),
    row("a", { accepted: 20, delivered: 20 }),
    row("c", { complained: 1 }),
  ]);
  it("orders by a rate either way, rows without it last, Other always last", () => {
    expect(sortLines(lines, { key: "bounced", descending: true }).map((l) => l.value)).toEqual(["b", "a", "c", ""]);
    expect(sortLines(lines, { key: "bounced", descending: false }).map((l) => l.value)).toEqual(["a", "b", "c", ""]);
    expect(sortLines(lines, { key: "sent", descending: true }).map((l) => l.value)).toEqual(["a", "b", "c", ""]);
    expect(sortLines(lines, { key: "value", descending: false }).map((l) => l.value)).toEqual(["a", "b", "c", ""]);
  });
  it("flips the same column, starts another descending (names ascending)", () => {
    expect(nextSort({ key: "sent", descending: true }, "sent")).toEqual({ key: "sent", descending: false });
    expect(nextSort({ key: "sent", descending: true }, "opened")).toEqual({ key: "opened", descending: true });
    expect(nextSort({ key: "sent", descending: true }, "value")).toEqual({ key: "value", descending: false });
  });
});

describe("parseBreakdownBy", () => {
  it("takes the four dimensions and defaults to tag", () => {
    expect(parseBreakdownBy("provider")).toBe("provider");
    expect(parseBreakdownBy("senderDomain")).toBe("senderDomain");
    expect(parseBreakdownBy("country")).toBe("tag");
    expect(parseBreakdownBy(undefined)).toBe("tag");
  });
});
