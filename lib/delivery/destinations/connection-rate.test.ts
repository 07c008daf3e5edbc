import { describe, expect, it } from "vitest";
import { ConnectionRate } from "./connection-rate";

describe("ConnectionRate", () => {
  it("lets `limit` connections open in any minute, then says when the next may", () => {
    const rate = new ConnectionRate(3);
    expect([rate.tryOpen(0), rate.tryOpen(10), rate.tryOpen(20)]).toEqual([0, 0, 0]);
    expect(rate.tryOpen(30)).toBe(60_000 - 30);
    // Refusals are not counted: the window frees when the first open is a minute old.
    expect(rate.tryOpen(59_999)).toBe(1);
    expect(rate.tryOpen(60_000)).toBe(0);
    expect(rate.tryOpen(60_001)).toBe(10 + 60_000 - 60_001);
  });

  it("has no limit without one, and takes a new limit at once", () => {
    const rate = new ConnectionRate(undefined);
    for (let i = 0; i < 1000; i++) expect(rate.tryOpen(i)).toBe(0);
    rate.setLimit(1);
    expect(rate.tryOpen(2000)).toBe(0);
    expect(rate.tryOpen(2001)).toBe(59_999);
  });

  it("keeps at most `limit` moments (a burst of refusals costs nothing)", () => {
    const rate = new ConnectionRate(2);
    for (let i = 0; i < 10_000; i++) rate.tryOpen(i);
    expect((rate as unknown as { opens: number[] }).opens).toHaveLength(2);
  });
});
