import { describe, expect, it } from "vitest";
import type { Connection } from "./smtp-connection";
import {
  backstopMs,
  destinationIsEmpty,
  destinationKey,
  destinationLoad,
  endSlot,
  laneIsUnused,
  laneLoad,
  newDestination,
  newLane,
  overShareError,
  setStalled,
  slotWaitError,
  takeExpiredIdle,
  takeExpiredWaiters,
  takeIdle,
  takeNewestWaiters,
  tickIntervalMs,
  hasStalled,
  countAccount,
  nextWaiterIndex,
  rememberStalled,
  MAX_STALLED_RECIPIENTS,
  STALLED_MEMORY_MS,
  type Lane,
  type Slot,
  type Waiter,
} from "./smtp-pool";
import { RFC5321_TIMEOUTS } from "./smtp-slots";

const target = { host: "mx.example", port: 25, secure: false };
const connection = (over: Partial<Connection> = {}) => ({ dead: false, idleSince: 0, ...over }) as Connection;
const slot = (lane: Lane, stalled = false): Slot => ({ lane, account: "", recipient: "a@example.com", probe: false, startedAt: 0, stalled });
const waiter = (lane: Lane, deadline = 0): Waiter => ({ lane, recipient: "a@example.com", account: "", deadline, resolve: () => {}, reject: () => {} });
const laneOf = (over: Partial<Lane>): Lane => ({ ...newLane(), ...over });

describe("the SMTP pool's bookkeeping", () => {
  it("keys a destination by host, port, TLS and user, and labels it by host and port", () => {
    expect(destinationKey(target)).toBe("mx.example:25:false:");
    expect(destinationKey({ ...target, secure: true, auth: { user: "u", pass: "p" } })).toBe("mx.example:25:true:u");
    expect(newDestination(target)).toMatchObject({ key: "mx.example:25:false:", label: "mx.example:25", stalled: 0 });
  });

  it("counts a destination's and a lane's load, stalled ones apart", () => {
    const d = newDestination(target);
    const lane = newLane();
    d.active.add(slot(lane)).add(slot(lane, true));
    d.stalled = 1;
    d.waiters.push(waiter(lane));
    expect(destinationLoad(d)).toEqual({ live: 1, stalled: 1, waiting: 1 });
    const busy = laneOf({ active: 3, stalled: 1, waiting: 2, answeredAt: 1000 });
    expect(laneLoad(busy, 1500, 1000)).toEqual({ live: 2, stalled: 1, waiting: 2, answeredRecently: true });
    expect(laneLoad(busy, 2000, 1000).answeredRecently).toBe(false);
  });

  it("ticks at a quarter of the shortest limit, between 25 ms and 1 s; backs up with the longest phase plus a minute", () => {
    expect(tickIntervalMs(RFC5321_TIMEOUTS, 30_000, 60_000)).toBe(1000);
    expect(tickIntervalMs({ ...RFC5321_TIMEOUTS, connectMs: 400 }, 30_000)).toBe(100);
    expect(tickIntervalMs(RFC5321_TIMEOUTS, 10)).toBe(25);
    expect(backstopMs({ ...RFC5321_TIMEOUTS, dataEndMs: 10 * 60_000 })).toBe(Math.max(...Object.values(RFC5321_TIMEOUTS), 600_000) + 60_000);
  });

  it("hands out the newest idle connection still open, dropping the dead ones above it", () => {
    const d = newDestination(target);
    const [older, newer] = [connection(), connection()];
    d.idle.push(older, newer, connection({ dead: true }));
    expect(takeIdle(d)).toBe(newer);
    expect(d.idle).toEqual([older]);
    expect(takeIdle(d)).toBe(older);
    expect(takeIdle(d)).toBeUndefined();
  });

  it("marks a slot stalled in its destination's and lane's counts, once", () => {
    const d = newDestination(target);
    const lane = newLane();
    const s = slot(lane);
    expect(setStalled(d, s, true)).toBe(1);
    expect(setStalled(d, s, true)).toBe(0);
    expect([d.stalled, lane.stalled, s.stalled]).toEqual([1, 1, true]);
    expect(setStalled(d, s, false)).toBe(-1);
    expect([d.stalled, lane.stalled]).toEqual([0, 0]);
  });

  it("ends a slot once: its counts go, an answer stamps its lane", () => {
    const d = newDestination(target);
    const lane = { ...newLane(), active: 1, stalled: 1 };
    const s = slot(lane, true);
    d.active.add(s);
    d.stalled = 1;
    expect(endSlot(d, s, true, 5000)).toBe(-1);
    expect([d.active.size, d.stalled, lane.active, lane.stalled, lane.answeredAt]).toEqual([0, 0, 0, 0, 5000]);
    expect(endSlot(d, s, true, 6000)).toBe(0);
    expect(lane.answeredAt).toBe(5000);
  });

  it("takes out idle connections dead or idle too long, and returns those to quit", () => {
    const d = newDestination(target);
    const fresh = connection({ idleSince: 900 });
    const old = connection({ idleSince: 0 });
    d.idle.push(old, fresh, connection({ dead: true, idleSince: 900 }));
    expect(takeExpiredIdle(d, 1000, 500)).toEqual([old]);
    expect(d.idle).toEqual([fresh]);
  });

  it("takes out the waiters at the front whose wait ran out, and the newest waiters of a lane", () => {
    const d = newDestination(target);
    const a = newLane();
    const b = newLane();
    const [w1, w2, w3, w4] = [waiter(a, 10), waiter(b, 20), waiter(a, 5), waiter(a, 40)];
    d.waiters.push(w1, w2, w3, w4);
    // w3's deadline passed too, but it is behind w2: the queue is first come, first served.
    expect(takeExpiredWaiters(d, 15)).toEqual([w1]);
    expect(takeNewestWaiters(d, a, 1)).toEqual([w4]);
    expect(takeNewestWaiters(d, a, 5)).toEqual([w3]);
    expect(d.waiters).toEqual([w2]);
  });

  it("forgets a lane with nothing running, waiting or answered within the stall time, and an empty destination", () => {
    expect(laneIsUnused(laneOf({ answeredAt: 0 }), 1000, 1000)).toBe(true);
    expect(laneIsUnused(laneOf({ answeredAt: 500 }), 1000, 1000)).toBe(false);
    expect(laneIsUnused(laneOf({ waiting: 1 }), 1000, 1000)).toBe(false);
    // A lane that remembers a recipient stalled within STALLED_MEMORY_MS stays.
    const remembering = laneOf({});
    rememberStalled(remembering, "slow@example.com", 1000);
    expect(laneIsUnused(remembering, 5000, 1000)).toBe(false);
    expect(laneIsUnused(remembering, 1000 + STALLED_MEMORY_MS, 1000)).toBe(true);
    const d = newDestination(target);
    expect(destinationIsEmpty(d)).toBe(true);
    d.lanes.set("example.com", newLane());
    expect(destinationIsEmpty(d)).toBe(false);
  });

  it("remembers the recipients that stalled at a lane, bounded, for STALLED_MEMORY_MS, and forgets one once it is answered", () => {
    const d = newDestination(target);
    const lane = newLane();
    rememberStalled(lane, "slow@example.com", 1000);
    expect(hasStalled(lane, "slow@example.com", 2000)).toBe(true);
    expect(hasStalled(lane, "fresh@example.com", 2000)).toBe(false);
    expect(hasStalled(lane, "slow@example.com", 1000 + STALLED_MEMORY_MS)).toBe(false);
    const s = { ...slot(lane), recipient: "slow@example.com" };
    d.active.add(s);
    lane.active = 1;
    endSlot(d, s, true, 3000);
    expect(hasStalled(lane, "slow@example.com", 3000)).toBe(false);
    for (let n = 0; n <= MAX_STALLED_RECIPIENTS; n++) rememberStalled(lane, `r${n}@example.com`, 4000);
    expect(lane.stalledRecipients.size).toBe(MAX_STALLED_RECIPIENTS);
    expect(hasStalled(lane, "r0@example.com", 4000)).toBe(false);
    expect(hasStalled(lane, `r${MAX_STALLED_RECIPIENTS}@example.com`, 4000)).toBe(true);
  });

  it("serves the line in accounts' turns: the oldest waiter of the account with the fewest transactions running", () => {
    const d = newDestination(target);
    const lane = newLane();
    const of = (account: string) => ({ ...waiter(lane), account });
    d.waiters.push(of("a"), of("a"), of("a"), of("b"), of("c"));
    expect(nextWaiterIndex(d)).toBe(0);
    countAccount(d, "a", 1);
    countAccount(d, "a", 1);
    countAccount(d, "c", 1);
    // a runs 2, c runs 1, b none: b's one copy goes before a's older ones.
    expect(nextWaiterIndex(d)).toBe(3);
    d.waiters.splice(3, 1);
    // c (1) before a (2).
    expect(nextWaiterIndex(d)).toBe(3);
    countAccount(d, "a", -1);
    countAccount(d, "a", -1);
    expect(d.byAccount.has("a")).toBe(false);
    expect(nextWaiterIndex(d)).toBe(0);
  });

  it("says why a request was not tried, as a deferral (4.4.5)", () => {
    const d = newDestination(target);
    expect(overShareError(d)).toMatchObject({ code: "ESLOTSHARE", enhancedCode: "4.4.5", message: expect.stringContaining("at mx.example:25 for these recipients") });
    expect(slotWaitError(d, 60_000)).toMatchObject({
      code: "ESLOTWAIT",
      enhancedCode: "4.4.5",
      message: "Not tried: no connection to mx.example:25 free within 1m (transactions running: 0, stalled: 0)",
    });
  });
});
