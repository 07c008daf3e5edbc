import { describe, expect, it } from "vitest";
import { matchHold, normaliseHoldKey, type Hold } from "./holds";

const NOW = new Date("2026-12-02T01:00:00Z");
const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";

function hold(over: Partial<Hold>): Hold {
  return { id: 1, key: "gmail", accountId: null, until: null, reason: "", source: "operator", placedBy: "cli", placedAt: NOW, ...over };
}

describe("normaliseHoldKey", () => {
  it("lower-cases, trims and drops a final dot", () => {
    expect(normaliseHoldKey("  Example.COM. ")).toBe("example.com");
    expect(normaliseHoldKey("relay")).toBe("relay");
    expect(normaliseHoldKey("mx1.example.com,mx2.example.com")).toBe("mx1.example.com,mx2.example.com");
  });
  it("refuses what names no destination", () => {
    expect(normaliseHoldKey("")).toBeUndefined();
    expect(normaliseHoldKey("a b")).toBeUndefined();
    expect(normaliseHoldKey("x'; DROP TABLE")).toBeUndefined();
    expect(normaliseHoldKey("a".repeat(1001))).toBeUndefined();
  });
});

describe("matchHold", () => {
  it("matches any of the destination's keys, for every account or the one named", () => {
    const holds = [hold({ id: 1, key: "gmail" }), hold({ id: 2, key: "example.com", accountId: B })];
    expect(matchHold(holds, ["a.example", "gmail"], A, NOW)?.id).toBe(1);
    expect(matchHold(holds, ["example.com", "mx.example.com"], A, NOW)).toBeUndefined();
    expect(matchHold(holds, ["example.com", "mx.example.com"], B, NOW)?.id).toBe(2);
  });
  it("ignores a hold whose end has passed", () => {
    const holds = [hold({ until: new Date(NOW.getTime() - 1) })];
    expect(matchHold(holds, ["gmail"], A, NOW)).toBeUndefined();
    expect(matchHold([hold({ until: new Date(NOW.getTime() + 1000) })], ["gmail"], A, NOW)).toBeDefined();
  });
  it("of several, answers the one lasting longest", () => {
    const soon = hold({ id: 1, until: new Date(NOW.getTime() + 1000) });
    const later = hold({ id: 2, key: "relay", until: new Date(NOW.getTime() + 60_000) });
    const forever = hold({ id: 3, key: "x.example" });
    expect(matchHold([soon, later], ["gmail", "relay"], A, NOW)?.id).toBe(2);
    expect(matchHold([soon, forever, later], ["gmail", "relay", "x.example"], A, NOW)?.id).toBe(3);
  });
  it("compares the keys case-insensitively", () => {
    expect(matchHold([hold({ key: "example.com" })], ["Example.com"], A, NOW)).toBeDefined();
  });
});
