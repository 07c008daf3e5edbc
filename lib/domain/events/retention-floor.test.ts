import { describe, expect, it } from "vitest";
import { retentionFloor } from "./retention-floor";

const H = 3600;
const DAY = 86_400;

describe("retentionFloor", () => {
  it("is the first whole hour inside the retention period", () => {
    const now = 1_000 * DAY + 10 * H + 1234;
    expect(retentionFloor(now, 30)).toBe(970 * DAY + 11 * H);
    expect(retentionFloor(now, 1)).toBe(999 * DAY + 11 * H);
  });
  it("is the edge itself when the edge is an hour boundary", () => {
    expect(retentionFloor(1_000 * DAY + 10 * H, 30)).toBe(970 * DAY + 10 * H);
  });
  it("hides an event at most an hour early and never late", () => {
    const logged = 500 * DAY + 7 * H + 59 * 60;
    for (let now = logged + 30 * DAY - 2 * H; now < logged + 30 * DAY + 2 * H; now += 37) {
      const visible = logged >= retentionFloor(now, 30);
      if (now - logged > 30 * DAY) expect(visible, `at ${now - logged}`).toBe(false);
      if (now - logged <= 30 * DAY - H) expect(visible, `at ${now - logged}`).toBe(true);
    }
  });
  it("works before 1970 plus the period (a clock near zero)", () => {
    expect(retentionFloor(10 * DAY + 5, 30)).toBe(-20 * DAY + H);
  });
});
