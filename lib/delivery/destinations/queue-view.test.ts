import { describe, expect, it } from "vitest";
import type { Hold } from "./holds";
import { queueRows, stateOf, type PendingCounts, type QueueThrottle } from "./queue-view";

const NOW = new Date("2026-12-02T01:00:00Z");
const A = "00000000-0000-4000-8000-00000000000a";

function hold(over: Partial<Hold>): Hold {
  return { id: 1, key: "example.com", accountId: null, until: null, reason: "", source: "operator", placedBy: "cli", placedAt: NOW, ...over };
}
function throttle(over: Partial<QueueThrottle>): QueueThrottle {
  return { key: "gmail", domain: "example.com", perMinute: 30, connections: 2, reason: "421 4.7.28 unusual rate", endsAt: NOW, ...over };
}
function counts(domain: string): PendingCounts {
  return { domain, queued: 2, deferred: 1, inFlight: 0, accounts: 1, nextAttemptAt: null, oldestAt: NOW, lastReplies: [], attemptsLastMinute: 0 };
}

describe("stateOf", () => {
  it("is suspended by a hold of every account, held by an account's, throttled by the back-off, else active", () => {
    expect(stateOf([])).toBe("active");
    expect(stateOf([], [throttle({})])).toBe("throttled");
    expect(stateOf([hold({ accountId: A })], [throttle({})])).toBe("held");
    expect(stateOf([hold({ accountId: A })])).toBe("held");
    expect(stateOf([hold({ accountId: A }), hold({ id: 2 })])).toBe("suspended");
  });
});

describe("queueRows", () => {
  it("gives each pending domain its holds, and each other hold a row of its own", () => {
    const rows = queueRows([counts("example.com"), counts("other.example")], [hold({ id: 1 }), hold({ id: 2, key: "gmail", source: "automatic" })], false);
    expect(rows.map((r) => [r.key, r.state, r.queued, r.automatic])).toEqual([
      ["example.com", "suspended", 2, false],
      ["other.example", "active", 2, false],
      ["gmail", "suspended", 0, true],
    ]);
  });
  it("in relay mode, a hold on relay stops every domain's row", () => {
    const rows = queueRows([counts("example.com"), counts("other.example")], [hold({ key: "relay", accountId: A })], true);
    expect(rows.map((r) => [r.key, r.destination, r.state])).toEqual([
      ["example.com", "relay", "held"],
      ["other.example", "relay", "held"],
    ]);
    expect(queueRows([], [hold({ key: "relay" })], true).map((r) => [r.key, r.destination, r.state])).toEqual([["relay", "relay", "suspended"]]);
  });
  it("shows a throttle on its domain's row and its destination's, the slowest first, and one that names no pending domain on a row of its own", () => {
    const rows = queueRows(
      [counts("example.com"), counts("other.example")],
      [],
      false,
      [throttle({ perMinute: 30 }), throttle({ key: "example.com", domain: "example.com", perMinute: 6 }), throttle({ key: "yahoo", domain: "yahoo.com" })],
    );
    expect(rows.map((r) => [r.key, r.state, r.throttles.map((t) => t.perMinute)])).toEqual([
      ["example.com", "throttled", [6, 30]],
      ["other.example", "active", []],
      ["yahoo", "throttled", [30]],
    ]);
    // In relay mode, a throttle of the relay slows every domain's row.
    const relayed = queueRows([counts("example.com"), counts("other.example")], [], true, [throttle({ key: "relay", domain: "example.com" })]);
    expect(relayed.map((r) => r.state)).toEqual(["throttled", "throttled"]);
  });
});
