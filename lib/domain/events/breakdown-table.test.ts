import { describe, expect, it } from "vitest";
import type { EventType } from "../../contract/events";
import { breakdownRates, breakdownRows, type ValueCount } from "./breakdown-table";

const vc = (value: string, type: EventType, n: number): ValueCount => ({ value, type, n });

describe("breakdownRows", () => {
  it("gives each value its counts, rates and the previous period's, largest accepted first", () => {
    const rows = breakdownRows(
      [vc("receipts", "accepted", 10), vc("receipts", "delivered", 8), vc("receipts", "failed", 2), vc("receipts", "opened", 4), vc("digest", "accepted", 40), vc("digest", "delivered", 40)],
      [vc("receipts", "accepted", 10), vc("receipts", "delivered", 10), vc("resets", "accepted", 5)],
      "tag",
    );
    expect(rows.map((r) => r.Value)).toEqual(["digest", "receipts", "resets"]);
    const receipts = rows[1]!;
    expect(receipts.Rates).toEqual({ delivered: 0.8, bounced: 0.2, complained: 0, opened: 0.5, clicked: 0 });
    expect(receipts.PreviousRates.bounced).toBe(0);
    // A value of the previous period alone: zero now, its old counts kept.
    expect(rows[2]!.Counts.accepted).toBe(0);
    expect(rows[2]!.PreviousCounts.accepted).toBe(5);
    expect(rows[2]!.Rates.delivered).toBeNull();
  });

  it("groups recipient domains by provider, unknown ones as Other", () => {
    const rows = breakdownRows(
      [vc("gmail.com", "accepted", 3), vc("googlemail.com", "accepted", 2), vc("hotmail.com", "accepted", 1), vc("example.com", "accepted", 4), vc("corp.example", "complained", 1)],
      [],
      "provider",
    );
    expect(Object.fromEntries(rows.map((r) => [r.Value, r.Counts.accepted]))).toEqual({ Gmail: 5, Other: 4, Outlook: 1 });
    expect(rows.find((r) => r.Value === "Other")!.Counts.complained).toBe(1);
  });

  it("keeps at most `max` values and folds the rest, with the summaries' own rest, into one last row", () => {
    const current = [vc("a.example", "accepted", 5), vc("b.example", "accepted", 4), vc("c.example", "accepted", 3), vc("", "accepted", 7)];
    const rows = breakdownRows(current, [vc("d.example", "accepted", 2)], "recipientDomain", 2);
    expect(rows.map((r) => [r.Value, r.Counts.accepted, r.PreviousCounts.accepted])).toEqual([
      ["a.example", 5, 0],
      ["b.example", 4, 0],
      ["", 10, 2],
    ]);
  });
});

describe("breakdownRates", () => {
  it("divides by accepted or delivered, null when that is 0", () => {
    const r = breakdownRates({ accepted: 0, delivered: 0, deferred: 0, failed: 0, rejected: 0, opened: 0, clicked: 0, complained: 0, unsubscribed: 0 } as never);
    expect(Object.values(r).every((v) => v === null)).toBe(true);
  });
});
