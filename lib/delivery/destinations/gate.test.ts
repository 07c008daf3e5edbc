import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { DestinationGate, type ThrottleNotice } from "./gate";
import type { Hold, NewHold } from "./holds";

const gmail = { key: "gmail", provider: "gmail" };
const keys = ["shop.example", "gmail"];

function gateWith(options: { holds?: Hold[]; rules?: Record<string, object>; clock?: { t: number } } = {}) {
  const clock = options.clock ?? { t: 1_000_000 };
  const placed: NewHold[] = [];
  const throttles: ThrottleNotice[] = [];
  const gate = new DestinationGate({
    holds: { holdFor: (k, account) => options.holds?.find((h) => k.includes(h.key) && (h.accountId === null || h.accountId === account)) },
    rules: () => (options.rules ?? {}) as never,
    placeHold: async (hold) => void placed.push(hold),
    onThrottle: (t) => void throttles.push(t),
    suspendMs: 3_600_000,
    maxWaitMs: 0,
    now: () => clock.t,
  });
  return { gate, placed, throttles, clock };
}

const hold = (over: Partial<Hold>): Hold => ({ id: 1, key: "gmail", accountId: null, until: null, reason: "", source: "operator", placedBy: "ops@example.com", placedAt: new Date(0), ...over });

describe("DestinationGate", () => {
  it("refuses a held destination, with the hold's end and who placed it", async () => {
    const { gate } = gateWith({ holds: [hold({ until: new Date(2_000_000), reason: "complaints" })] });
    const a = await gate.admit(keys, gmail, "acct-1");
    expect(a).toEqual({ ok: false, until: 2_000_000, reason: "Held: gmail suspended by ops@example.com until 1970-01-01T00:33:20.000Z: complaints" });
  });

  it("holds one account only when the hold names it", async () => {
    const { gate } = gateWith({ holds: [hold({ accountId: "acct-1" })] });
    expect((await gate.admit(keys, gmail, "acct-1")).ok).toBe(false);
    expect((await gate.admit(keys, gmail, "acct-2")).ok).toBe(true);
  });

  it("hands an admitted copy its rule's connection members; the window of opens is the destination's, one for all its copies", async () => {
    const { gate, clock } = gateWith({ rules: { default: { requireTls: true }, gmail: { messagesPerConnection: 50, connectionsPerMinute: 1 } } });
    const a = await gate.admit(keys, gmail, "a");
    const b = await gate.admit(keys, gmail, "b");
    if (!a.ok || !b.ok) throw new Error("admitted");
    expect(a.shape).toMatchObject({ requireTls: true, messagesPerConnection: 50 });
    expect(a.shape.openRate?.tryOpen(clock.t)).toBe(0);
    expect(b.shape.openRate?.tryOpen(clock.t)).toBe(60_000);
    const other = await gate.admit(["other.example"], { key: "other.example", provider: undefined } as never, "a");
    if (!other.ok) throw new Error("admitted");
    expect(other.shape).toEqual({ requireTls: true, messagesPerConnection: undefined, openRate: undefined });
  });

  it("keeps to a rule's connections and rate, handing out later moments", async () => {
    const { gate, clock } = gateWith({ rules: { gmail: { maxConnections: 1, messagesPerMinute: 60 } } });
    const first = await gate.admit(keys, gmail, "a");
    expect(first.ok).toBe(true);
    const second = await gate.admit(keys, gmail, "a");
    expect(second).toMatchObject({ ok: false, reason: expect.stringMatching(/^Throttled: gmail's shaping rule/) });
    if (first.ok) first.release();
    // A burst of 6 (a tenth of the minute), then one a second.
    let admitted = 1;
    for (let i = 0; i < 20; i++) {
      const a = await gate.admit(keys, gmail, "a");
      if (a.ok) {
        admitted++;
        a.release();
      }
    }
    expect(admitted).toBe(6);
    clock.t += 1000;
    expect((await gate.admit(keys, gmail, "a")).ok).toBe(true);
  });

  it("tells of a throttle once per recipient domain and change, with when it ends without another complaint", () => {
    const { gate, throttles, clock } = gateWith();
    const complaint = { responseCode: 421, response: "421 4.7.28 unusual rate" };
    gate.observe(keys, gmail, complaint);
    gate.observe(keys, gmail, complaint);
    gate.observe(["other.example", "gmail"], gmail, complaint);
    expect(throttles.map((t) => [t.key, t.domain, t.throttle.perMinute, t.endsAt - clock.t])).toEqual([
      ["gmail", "shop.example", 6, 90_000],
      ["gmail", "other.example", 6, 90_000],
    ]);
    // A step later the throttle was raised to 8 a minute; a complaint then is the same episode and keeps it: told again, it changed.
    clock.t += 30_000;
    gate.observe(keys, gmail, complaint);
    gate.observe(keys, gmail, complaint);
    expect(throttles.slice(2).map((t) => [t.domain, t.throttle.perMinute])).toEqual([["shop.example", 8]]);
  });

  it("throttles after a rate complaint: later copies are refused and come back one interval apart", async () => {
    const { gate } = gateWith();
    for (let i = 0; i < 40; i++) gate.observe(keys, gmail, { responseCode: 250, response: "250 ok" });
    gate.observe(keys, gmail, { responseCode: 421, response: "421 4.7.28 unusual rate" });
    expect(gate.stateNames()).toEqual([["gmail", "throttled"]]);
    const a = await gate.admit(keys, gmail, "a");
    expect(a.ok).toBe(true);
    const b = await gate.admit(keys, gmail, "a");
    const c = await gate.admit(keys, gmail, "a");
    expect(b).toMatchObject({ ok: false, reason: expect.stringContaining("asked for a lower rate (20/min now): 421 4.7.28 unusual rate") });
    if (!b.ok && !c.ok) expect(c.until - b.until).toBe(3000);
  });

  it("suspends on a block-list reply: an automatic hold for the configured time", async () => {
    const { gate, placed, clock } = gateWith();
    gate.observe(keys, gmail, { responseCode: 550, response: "550 5.7.1 blocked using zen.spamhaus.org" });
    expect(placed).toEqual([{ key: "gmail", until: new Date(clock.t + 3_600_000), reason: "550 5.7.1 blocked using zen.spamhaus.org", source: "automatic", placedBy: "automatic" }]);
    expect(gate.suspendedUntil("gmail")).toBe(clock.t + 3_600_000);
  });

  it("reports each destination held back on mailroom_destination_state", async () => {
    const registry = new Registry();
    const gate = new DestinationGate({ holds: { holdFor: () => undefined }, rules: () => ({}), suspendMs: 60_000, registry });
    gate.observe(["a.example", "mx.a.example"], { key: "mx.a.example" }, { responseCode: 554, response: "554 5.7.1 listed on a blocklist" });
    gate.observe(keys, gmail, { responseCode: 421, response: "421 4.7.28 unusual rate" });
    const text = await registry.metrics();
    expect(text).toContain('mailroom_destination_state{destination="mx.a.example",state="suspended"} 1');
    expect(text).toContain('mailroom_destination_state{destination="gmail",state="throttled"} 1');
  });
});
