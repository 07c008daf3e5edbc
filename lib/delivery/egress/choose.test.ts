import { describe, expect, it } from "vitest";
import { chooseAddress, type Candidate } from "./choose";
import { parseWarmupSchedule, DEFAULT_WARMUP } from "./warmup";

const now = Date.UTC(2026, 11, 2, 15, 20);
const DAY = 24 * 60 * 60_000;
const fresh = new Date(now);
const warm = new Date(now - 60 * DAY);
const c = (address: string, warmupFrom: Date, day: number, hour = 0): Candidate => ({ address, warmupFrom, day, hour });
const tiny = parseWarmupSchedule(JSON.stringify({ warmAfterDay: 30, default: [{ day: 1, daily: 3, hourly: 2 }] }));

describe("chooseAddress", () => {
  it("picks the address with the smallest used fraction of its caps", () => {
    // Day 1 caps 50/8: 4 of 8 this hour is half used; 2 of 8 a quarter.
    expect(chooseAddress([c("a", fresh, 4, 4), c("b", fresh, 2, 2)], "gmail", DEFAULT_WARMUP, now)).toMatchObject({ ok: true, address: "b" });
    // A warm address (no cap) is used at 0: it takes the mail before a new one that sent any today.
    expect(chooseAddress([c("new", fresh, 1, 1), c("old", warm, 10_000, 500)], "gmail", DEFAULT_WARMUP, now)).toMatchObject({ ok: true, address: "old" });
    expect(chooseAddress([c("new", fresh, 0), c("old", warm, 10_000, 500)], "gmail", DEFAULT_WARMUP, now)).toMatchObject({ ok: true, address: "new" });
  });

  it("spreads equal fractions to the one that sent least today, then in the pool's order", () => {
    expect(chooseAddress([c("a", warm, 9), c("b", warm, 4)], "gmail", DEFAULT_WARMUP, now)).toMatchObject({ address: "b" });
    expect(chooseAddress([c("a", warm, 4), c("b", warm, 4)], "gmail", DEFAULT_WARMUP, now)).toMatchObject({ address: "a" });
  });

  it("skips an address past a cap and sends from another", () => {
    expect(chooseAddress([c("a", fresh, 3, 0), c("b", fresh, 1, 1)], "gmail", tiny, now)).toMatchObject({ ok: true, address: "b" });
    expect(chooseAddress([c("a", fresh, 1, 2), c("b", fresh, 2, 1)], "gmail", tiny, now)).toMatchObject({ ok: true, address: "b" });
  });

  it("waits until the next UTC hour when only hourly caps are spent, the next UTC day for daily ones", () => {
    const hourly = chooseAddress([c("a", fresh, 2, 2)], "gmail", tiny, now);
    expect(hourly).toEqual({
      ok: false,
      until: Date.UTC(2026, 11, 2, 16),
      reason: "Held: warm-up cap: a reached its warm-up day-1 cap of 2 an hour to gmail; waits until 2026-12-02T16:00:00.000Z",
    });
    const daily = chooseAddress([c("a", fresh, 3, 0), c("b", fresh, 3, 1)], "gmail", tiny, now);
    expect(daily).toMatchObject({ ok: false, until: Date.UTC(2026, 11, 3) });
    expect((daily as { reason: string }).reason).toMatch(/cap of 3 a day to gmail \(and the other 1 of its pool theirs\)/);
    // The earliest frees: one address's hourly cap before another's daily one.
    expect(chooseAddress([c("a", fresh, 3, 0), c("b", fresh, 2, 2)], "gmail", tiny, now)).toMatchObject({ ok: false, until: Date.UTC(2026, 11, 2, 16) });
  });

  it("waits when the pool has no address", () => {
    expect(chooseAddress([], "gmail", tiny, now)).toMatchObject({ ok: false, reason: "Held: its egress pool has no address" });
  });
});
