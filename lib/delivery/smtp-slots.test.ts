import { describe, expect, it } from "vitest";
import { classifySmtpAnswer } from "./classify";
import {
  admit,
  countedAgainst,
  formatDuration,
  isSuspect,
  mayGiveUpIn,
  phaseLimitMs,
  probeGivenUpReason,
  probeLimit,
  probeLineEntry,
  probeLineLimit,
  phaseOfCommand,
  RFC5321_TIMEOUTS,
  sharedBudget,
  suspectShare,
  timeoutReason,
  waiterMayStart,
  waitersOverShare,
  type SlotLimits,
} from "./smtp-slots";

const pool: SlotLimits = { perDestination: 4, stalledExtra: 4 };
const shared: SlotLimits = { perDestination: 4, stalledExtra: 4, shared: { total: 8, reserve: 2 } };
const load = (live: number, stalled = 0, waiting = 0, answeredRecently = false) => ({ live, stalled, waiting, answeredRecently });
const idle = load(0);

describe("slot accounting of the SMTP pool", () => {
  it("counts live transactions, and stalled ones only past the extra connections", () => {
    expect(countedAgainst(pool, load(3))).toBe(3);
    expect(countedAgainst(pool, load(0, 4))).toBe(0);
    expect(countedAgainst(pool, load(1, 6))).toBe(3);
    expect(countedAgainst(pool, load(0, 8))).toBe(4);
  });

  it("starts while the destination has room, then queues first come, first served", () => {
    expect(admit(pool, load(3), idle, 0)).toBe("start");
    expect(admit(pool, load(4), idle, 0)).toBe("wait");
    // Room, but someone is already waiting: no overtaking.
    expect(admit(pool, load(2, 0, 1), idle, 0)).toBe("wait");
    expect(waiterMayStart(pool, load(3, 0, 5))).toBe(true);
    expect(waiterMayStart(pool, load(4, 0, 5))).toBe(false);
  });

  it("lets mail past a tarpit: stalled transactions free their slots, up to the extra connections", () => {
    // 4 stuck transactions, all stalled: fresh mail starts (a 5th connection).
    expect(admit(pool, load(0, 4), idle, 0)).toBe("start");
    // 8 stalled: the 4 beyond the extras count again, the destination is full.
    expect(admit(pool, load(0, 8), idle, 0)).toBe("wait");
    // Without a shared budget nothing is refused, only made to wait.
    expect(admit(pool, load(0, 100, 100), load(0, 100, 100), 1000)).toBe("wait");
  });

  it("a lane is suspect while it has stalled transactions and none of its transactions was answered lately", () => {
    expect(isSuspect(load(0, 1))).toBe(true);
    expect(isSuspect(load(5, 1, 0, true))).toBe(false);
    expect(isSuspect(load(5, 0, 9))).toBe(false);
  });

  it("suspect lanes never take the reserved slots; lanes that are answered always may", () => {
    expect(suspectShare(shared)).toBe(6);
    const destination = load(0, 6);
    // The suspect lane holds 5 (1 live, 4 stalled): the 6th may start.
    expect(admit(shared, destination, load(1, 4), 0)).toBe("start");
    // 6 held: its share is used up, refused at once.
    expect(admit(shared, destination, load(2, 4), 0)).toBe("refuse");
    // Counted across lanes: 4 held by other suspect lanes (another recipient domain, another MX).
    expect(admit(shared, destination, load(1, 1), 4)).toBe("refuse");
    expect(admit(shared, destination, load(0, 1), 4)).toBe("start");
    // A lane that is answered is never refused, at the same destination or another, whatever stalled lanes hold.
    expect(admit(shared, destination, load(3), 6)).toBe("start");
    expect(admit(shared, destination, load(3, 2, 0, true), 6)).toBe("start");
    // It may still have to wait for the destination's room.
    expect(admit(shared, load(4), load(3), 6)).toBe("wait");
  });

  it("over the share, a recipient not yet seen to stall runs as a probe, half the reserve at most, else waits in the probe line; one that stalled is refused", () => {
    expect(probeLimit(shared)).toBe(1);
    expect(probeLimit({ ...shared, shared: { total: 64, reserve: 16 } })).toBe(8);
    expect(probeLimit(pool)).toBe(0);
    const destination = load(0, 8);
    const fresh = { recipientStalled: false, probesRunning: 0 };
    // Over the share: a fresh recipient probes, even at a destination full of stalled transactions.
    expect(admit(shared, destination, load(2, 4), 0, fresh)).toBe("probe");
    expect(admit(shared, destination, load(2, 4), 0, { ...fresh, recipientStalled: true })).toBe("refuse");
    expect(admit(shared, destination, load(2, 4), 0, { ...fresh, probesRunning: 1 })).toBe("probe line");
    expect(admit(shared, destination, load(2, 4), 0, { recipientStalled: true, probesRunning: 1 })).toBe("refuse");
    // Within the share, or for a lane that is answered, nothing changes.
    expect(admit(shared, load(0, 6), load(1, 4), 0, fresh)).toBe("start");
    expect(admit(shared, load(4), load(3), 6, fresh)).toBe("wait");
    // Without a shared budget there are no probes.
    expect(admit(pool, destination, load(2, 4), 0, fresh)).toBe("wait");
  });

  it("the probe line holds half as many as the probes, newest message first; a full line lets a newer one in by refusing its oldest", () => {
    expect(probeLineLimit({ ...shared, shared: { total: 64, reserve: 16 } })).toBe(4);
    expect(probeLineLimit(shared)).toBe(1);
    expect(probeLineLimit(pool)).toBe(0);
    // Acceptance times of the waiters, newest first.
    expect(probeLineEntry([], 4, 100)).toEqual({ index: 0, evictOldest: false });
    expect(probeLineEntry([300, 200], 4, 250)).toEqual({ index: 1, evictOldest: false });
    expect(probeLineEntry([300, 200], 4, 100)).toEqual({ index: 2, evictOldest: false });
    // Equal times keep their order of arrival.
    expect(probeLineEntry([300, 200], 4, 200)).toEqual({ index: 2, evictOldest: false });
    // Full: a newer message gets in and the oldest waiter is refused; an older one is refused itself.
    expect(probeLineEntry([400, 300, 200, 100], 4, 350)).toEqual({ index: 1, evictOldest: true });
    expect(probeLineEntry([400, 300, 200, 100], 4, 50)).toBeUndefined();
    expect(probeLineEntry([400, 300, 200, 100], 4, 100)).toBeUndefined();
  });

  it("a probe may be given up in any phase before the end of data, and says why", () => {
    for (const phase of ["connect", "greeting", "EHLO", "MAIL", "RCPT", "DATA", "data block"] as const) expect(mayGiveUpIn(phase)).toBe(true);
    expect(mayGiveUpIn("end of data")).toBe(false);
    expect(mayGiveUpIn("idle")).toBe(false);
    expect(probeGivenUpReason("RCPT", 1000, "example.org")).toBe(
      "Not answered: no reply to RCPT within 1s while other transactions for example.org stall; given up to keep delivery slots for mail that is answered",
    );
    expect(probeGivenUpReason("data block", 5000, "example.org")).toMatch(/^Not answered: no progress sending the message data within 5s/);
  });

  it("waiters of suspect lanes over the share are given up, the busiest lane first", () => {
    // Suspect demand 5+5 = 10 against a share of 6: four waiters go; the lane that is answered keeps its own.
    const refuse = waitersOverShare(shared, [load(1, 1, 3), load(0, 2, 3), load(4, 1, 9, true)]);
    expect(refuse).toEqual([2, 2, 0]);
    expect(waitersOverShare(shared, [load(1, 1, 1), load(2, 0, 5)])).toEqual([0, 0]);
    // Only waiters can be given up: running transactions finish or time out.
    expect(waitersOverShare(shared, [load(0, 9, 1)])).toEqual([1]);
    expect(waitersOverShare(pool, [load(0, 9, 9)])).toEqual([0]);
  });

  it("keeps a quarter of the delivery job slots (at least one) from suspect lanes", () => {
    expect(sharedBudget(64)).toEqual({ total: 64, reserve: 16 });
    expect(sharedBudget(2)).toEqual({ total: 2, reserve: 1 });
    expect(suspectShare({ perDestination: 1, stalledExtra: 1, shared: sharedBudget(1) })).toBe(1);
  });
});

describe("SMTP phases and their limits", () => {
  it("names the reply each command waits for", () => {
    expect(phaseOfCommand("MAIL FROM:<a@b.example> BODY=8BITMIME")).toBe("MAIL");
    expect(phaseOfCommand("RCPT TO:<c@d.example>")).toBe("RCPT");
    expect(phaseOfCommand("DATA")).toBe("DATA");
    expect(phaseOfCommand("EHLO mail.example")).toBe("EHLO");
    expect(phaseOfCommand("HELO mail.example")).toBe("EHLO");
    expect(phaseOfCommand("STARTTLS")).toBe("STARTTLS");
    expect(phaseOfCommand("AUTH PLAIN AHVzZXIAcGFzcw==")).toBe("AUTH");
    expect(phaseOfCommand("dXNlcg==")).toBe("AUTH");
    expect(phaseOfCommand("")).toBe("AUTH");
    expect(phaseOfCommand("QUIT")).toBe("QUIT");
  });

  it("takes RFC 5321 §4.5.3.2's limits by default", () => {
    const t = RFC5321_TIMEOUTS;
    expect([phaseLimitMs("connect", t), phaseLimitMs("greeting", t), phaseLimitMs("EHLO", t)]).toEqual([300_000, 300_000, 300_000]);
    expect([phaseLimitMs("MAIL", t), phaseLimitMs("RCPT", t), phaseLimitMs("DATA", t)]).toEqual([300_000, 300_000, 120_000]);
    expect([phaseLimitMs("data block", t), phaseLimitMs("end of data", t)]).toEqual([180_000, 600_000]);
  });

  it("writes durations and reasons that the classifier keeps as they are", () => {
    expect([250, 1500, 30_000, 90_000, 300_000, 5_400_000, 7_200_000].map(formatDuration)).toEqual(["250ms", "1.5s", "30s", "90s", "5m", "90m", "2h"]);
    expect(timeoutReason("RCPT", 300_000)).toBe("Timeout waiting for RCPT reply (no answer after 5m)");
    expect(timeoutReason("end of data", 600_000)).toBe("Timeout waiting for the reply to the end of data (no answer after 10m)");
    expect(timeoutReason("data block", 180_000)).toBe("Timeout sending the message data (no progress for 3m)");
    const c = classifySmtpAnswer({ errorCode: "ETIMEDOUT", response: timeoutReason("RCPT", 250), enhancedCode: "4.4.2" });
    expect(c).toMatchObject({ outcome: "deferred", smtpCode: null, enhancedCode: "4.4.2", diagnostic: "Timeout waiting for RCPT reply (no answer after 250ms)", bounceType: "soft" });
    // A server's own 4xx keeps its code: ours is only for failures without a reply.
    expect(classifySmtpAnswer({ responseCode: 451, response: "451 Try later", enhancedCode: "4.4.2" }).enhancedCode).toBe("4.4.1");
  });
});
