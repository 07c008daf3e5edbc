import { describe, expect, it } from "vitest";
import type { Hold } from "./holds";
import { queueRows, stateOf, type PendingCounts } from "./queue-view";

const NOW = new Date("2026-12-02T01:00:00Z");
const A = "00000000-0000-4000-8000-00000000000a";

function hold(over: Partial<Hold>): Hold {
  return { id: 1, key: "example.com", accountId: null, until: null, reason: "", source: "operator", placedBy: "cli", placedAt: NOW, ...over };
}
function counts(domain: string): PendingCounts {
  return { domain, queued: 2, deferred: 1, inFlight: 0, accounts: 1, nextAttemptAt: null, oldestAt: NOW, lastReplies: [], attemptsLastMinute: 0 };
}

describe("stateOf", () => {
  it("is suspended by a hold of every account, held by an account's, else active", () => {
    expect(stateOf([])).toBe("active");
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
});
