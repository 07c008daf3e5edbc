import { describe, expect, it } from "vitest";
import { axisLabel, bucketLabel, formatValue } from "./chart-labels";

const at = (iso: string) => Date.parse(iso) / 1000;

describe("bucket labels", () => {
  it("names a bucket in full for the tooltip and the table", () => {
    expect(bucketLabel(at("2026-11-27T08:00:00Z"), "hour")).toBe("11-27 08:00");
    expect(bucketLabel(at("2026-11-27T00:00:00Z"), "day")).toBe("2026-11-27");
  });

  it("shortens the axis: hours as HH:00, the date where the day changes, days as MM-DD", () => {
    expect(axisLabel(at("2026-11-27T08:00:00Z"), "hour")).toBe("08:00");
    expect(axisLabel(at("2026-11-28T00:00:00Z"), "hour")).toBe("11-28");
    expect(axisLabel(at("2026-11-27T00:00:00Z"), "day")).toBe("11-27");
  });
});

describe("formatValue", () => {
  it("prints counts with separators, rates with their unit, and a dash for no value", () => {
    expect(formatValue(12345)).toBe("12,345");
    expect(formatValue(95.2, "%")).toBe("95.2%");
    expect(formatValue(null, "%")).toBe("—");
    expect(formatValue(undefined)).toBe("—");
  });
});
