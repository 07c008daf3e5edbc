import { describe, expect, it } from "vitest";
import { meterOf } from "./meter";

describe("meterOf", () => {
  it("shows the volume against the cap, bounded at full", () => {
    expect(meterOf(3, 50)).toEqual({ text: "3 / 50", percent: 6, full: false });
    expect(meterOf(50, 50)).toEqual({ text: "50 / 50", percent: 100, full: true });
    expect(meterOf(53, 50)).toEqual({ text: "53 / 50", percent: 100, full: true });
    expect(meterOf(7, null)).toEqual({ text: "7 / no cap", percent: 0, full: false });
    expect(meterOf(0, 0)).toMatchObject({ full: true });
  });
});
