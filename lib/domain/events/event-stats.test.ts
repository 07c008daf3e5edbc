import { describe, expect, it } from "vitest";
import { bucketCount, bucketStarts } from "./event-stats";

describe("bucketStarts", () => {
  it("rounds the start down and includes the bucket of EndDate", () => {
    const day = 86_400;
    expect(bucketStarts(day + 5, 3 * day, "day")).toEqual([day, 2 * day, 3 * day]);
    expect(bucketStarts(3600 * 2 + 1, 3600 * 4 - 1, "hour")).toEqual([7200, 10800]);
    expect(bucketStarts(100, 100, "hour")).toEqual([0]);
  });
});

describe("bucketCount", () => {
  it("agrees with bucketStarts", () => {
    for (const [s, e] of [[5, 86_400 * 3], [7201, 14_399], [0, 0], [86_399, 86_400]] as const) {
      expect(bucketCount(s, e, "day")).toBe(bucketStarts(s, e, "day").length);
      expect(bucketCount(s, e, "hour")).toBe(bucketStarts(s, e, "hour").length);
    }
  });
});
