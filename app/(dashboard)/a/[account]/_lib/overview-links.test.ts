import { describe, expect, it } from "vitest";
import { explorerHrefForBucket, rangeHrefForBuckets } from "./overview-links";
import { resolveRange } from "./overview";

const at = (iso: string) => Date.parse(iso) / 1000;
const query = (href: string) => Object.fromEntries(new URL(href, "http://x").searchParams);

describe("explorerHrefForBucket", () => {
  it("opens a day bucket as that whole day", () => {
    expect(explorerHrefForBucket("/a/acc", at("2026-11-27T00:00:00Z"), "day")).toBe("/a/acc/events?from=2026-11-27&to=2026-11-27");
  });
  it("opens an hour bucket from its first to its last minute", () => {
    expect(query(explorerHrefForBucket("/a/acc", at("2026-11-27T08:00:00Z"), "hour"))).toEqual({ from: "2026-11-27T08:00", to: "2026-11-27T08:59" });
  });
});

describe("rangeHrefForBuckets", () => {
  const NOW = at("2026-12-01T12:34:00Z");
  it("makes brushed days the page's custom range, which resolves to exactly those days", () => {
    const href = rangeHrefForBuckets("/a/acc", at("2026-11-24T00:00:00Z"), at("2026-11-27T00:00:00Z"), "day");
    expect(href).toBe("/a/acc?range=custom&from=2026-11-24&to=2026-11-27");
    const r = resolveRange(query(href), NOW);
    expect([r.start, r.end, r.interval]).toEqual([at("2026-11-24T00:00:00Z"), at("2026-11-28T00:00:00Z") - 1, "day"]);
  });
  it("makes brushed hours an hourly range of exactly those hours, whichever end was dragged first", () => {
    const href = rangeHrefForBuckets("/a/acc", at("2026-12-01T10:00:00Z"), at("2026-12-01T06:00:00Z"), "hour");
    expect(query(href)).toEqual({ range: "custom", from: "2026-12-01T06:00", to: "2026-12-01T10:00" });
    const r = resolveRange(query(href), NOW);
    expect([r.start, r.end, r.interval]).toEqual([at("2026-12-01T06:00:00Z"), at("2026-12-01T11:00:00Z") - 1, "hour"]);
    expect(r.previous).toEqual({ start: at("2026-12-01T01:00:00Z"), end: at("2026-12-01T06:00:00Z") - 1 });
  });
});
