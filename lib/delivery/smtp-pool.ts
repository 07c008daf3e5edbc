import type { Connection, SmtpError, SmtpTarget } from "./smtp-connection";
import { formatDuration, type SlotLoad, type SmtpTimeouts } from "./smtp-slots";
import { hopTlsKey } from "./tls-policy/hop-tls";

/**
 * The bookkeeping of delivery's SMTP pool (smtp-client.ts): destinations,
 * their lanes, the slots transactions hold and the requests waiting for one,
 * and the small steps that change them. When a request may start is
 * smtp-slots.ts's; the pool only counts.
 */

export interface Slot {
  lane: Lane;
  account: string;
  /** The recipient of the transaction (RCPT TO). */
  recipient: string;
  /** Started over the suspect share (smtp-slots.ts admit): given up if it stalls before the end of data. */
  probe: boolean;
  startedAt: number;
  /** The connection the transaction uses (or is opening). */
  connection?: Connection;
  stalled: boolean;
}

export interface Waiter {
  lane: Lane;
  recipient: string;
  /** Whose mail it is: a destination's line takes accounts in turn (nextWaiterIndex). */
  account: string;
  deadline: number;
  resolve: (slot: Slot) => void;
  reject: (err: SmtpError) => void;
}

/** A request in the probe line (smtp-slots.ts probeLineEntry): its destination and when its message was accepted. */
export interface ProbeWaiter extends Waiter {
  destination: Destination;
  acceptedAt: number;
}

/** One pool of connections: host, port, TLS and user. */
export interface Destination {
  key: string;
  label: string;
  idle: Connection[];
  active: Set<Slot>;
  stalled: number;
  /** In order of arrival, whatever their lane; served in accounts' turns (nextWaiterIndex). */
  waiters: Waiter[];
  /** Transactions running per account. */
  byAccount: Map<string, number>;
  lanes: Map<string, Lane>;
}

/** What transactions at a destination are for (a recipient domain): the unit a tarpit is noticed in. */
export interface Lane {
  active: number;
  stalled: number;
  waiting: number;
  /** Requests of the lane in the probe line (not in `waiting`: they wait beside the suspect share, as probes run). */
  probing: number;
  /** When one of its transactions last ended with an answer of the peer. */
  answeredAt: number;
  /** Recipients whose transaction stalled here, and when: they run no probe (docs/adr/0325). */
  stalledRecipients: Map<string, number>;
}

/** Recipients a lane remembers as stalled, at most, and for how long; the oldest are forgotten first. */
export const MAX_STALLED_RECIPIENTS = 10_000;
export const STALLED_MEMORY_MS = 10 * 60_000;

/** The recipient's transaction stalled at the lane within STALLED_MEMORY_MS. */
export function hasStalled(lane: Lane, recipient: string, now: number): boolean {
  const at = lane.stalledRecipients.get(recipient);
  return at !== undefined && now - at < STALLED_MEMORY_MS;
}

/** When the lane last remembered a stalled recipient (0: none). */
const lastStalledAt = (lane: Lane): number => {
  let last = 0;
  for (const at of lane.stalledRecipients.values()) last = at;
  return last;
};

export const destinationKey = (target: SmtpTarget): string =>
  `${target.host}:${target.port}:${target.secure}:${target.auth?.user ?? ""}${target.requireTls ? ":tls" : ""}${hopTlsKey(target.tls)}${target.localAddress ? `:from ${target.localAddress}` : ""}`;

export function newDestination(target: SmtpTarget): Destination {
  return { key: destinationKey(target), label: `${target.host}:${target.port}`, idle: [], active: new Set(), stalled: 0, waiters: [], lanes: new Map(), byAccount: new Map() };
}

export const newLane = (): Lane => ({ active: 0, stalled: 0, waiting: 0, probing: 0, answeredAt: 0, stalledRecipients: new Map() });

/** The recipient's transaction stalled at the lane: remembered (bounded, newest last). */
export function rememberStalled(lane: Lane, recipient: string, now: number): void {
  lane.stalledRecipients.delete(recipient);
  lane.stalledRecipients.set(recipient, now);
  if (lane.stalledRecipients.size > MAX_STALLED_RECIPIENTS) lane.stalledRecipients.delete(lane.stalledRecipients.keys().next().value!);
}

export const destinationLoad = (d: Destination): SlotLoad => ({ live: d.active.size - d.stalled, stalled: d.stalled, waiting: d.waiters.length });

export function laneLoad(lane: Lane, now: number, stallAfterMs: number): SlotLoad {
  return { live: lane.active - lane.stalled, stalled: lane.stalled, waiting: lane.waiting, answeredRecently: now - lane.answeredAt < stallAfterMs };
}

/** Limits are checked on a tick: a quarter of the shortest one, between 25 ms and 1 s. */
export function tickIntervalMs(timeouts: SmtpTimeouts, ...others: number[]): number {
  const shortest = Math.min(...Object.values(timeouts), ...others);
  return Math.max(25, Math.min(1000, Math.floor(shortest / 4)));
}

/** The longest any phase may last, plus a minute: SMTPConnection's own timers only as a backstop. */
export const backstopMs = (timeouts: SmtpTimeouts): number => Math.max(...Object.values(timeouts)) + 60_000;

/** A newest idle connection still open, taken out of the pool; the dead ones before it are dropped. */
export function takeIdle(d: Destination): Connection | undefined {
  while (d.idle.length > 0) {
    const c = d.idle.pop()!;
    if (!c.dead) return c;
  }
  return undefined;
}

/**
 * Marks the slot stalled or not, in its destination's and lane's counts;
 * returns the change to the pool's total (-1, 0 or 1).
 */
export function setStalled(d: Destination, slot: Slot, stalled: boolean): number {
  if (stalled === slot.stalled) return 0;
  const delta = stalled ? 1 : -1;
  slot.stalled = stalled;
  d.stalled += delta;
  slot.lane.stalled += delta;
  return delta;
}

/**
 * The slot's transaction ended (`answered`: with an answer of the peer);
 * returns the change to the pool's stalled total. A slot already ended counts
 * nothing.
 */
export function endSlot(d: Destination, slot: Slot, answered: boolean, now: number): number {
  if (!d.active.delete(slot)) return 0;
  slot.lane.active--;
  if (answered) slot.lane.stalledRecipients.delete(slot.recipient);
  let delta = 0;
  if (slot.stalled) {
    d.stalled--;
    slot.lane.stalled--;
    delta = -1;
  }
  if (answered) slot.lane.answeredAt = now;
  return delta;
}

/** Idle connections dead or idle for `idleCloseMs`, taken out of the pool; those still open are returned, to be quit. */
export function takeExpiredIdle(d: Destination, now: number, idleCloseMs: number): Connection[] {
  const open: Connection[] = [];
  for (let i = d.idle.length - 1; i >= 0; i--) {
    const c = d.idle[i]!;
    if (c.dead || now - c.idleSince >= idleCloseMs) {
      d.idle.splice(i, 1);
      if (!c.dead) open.push(c);
    }
  }
  return open;
}

/**
 * The waiter served next (docs/adr/0325): the oldest of the account with the
 * fewest transactions running at the destination, so that one tenant's
 * thousands of copies in line never hold another's one copy behind them.
 */
export function nextWaiterIndex(d: Destination): number {
  let best = 0;
  let fewest = Number.POSITIVE_INFINITY;
  const seen = new Set<string>();
  for (let i = 0; i < d.waiters.length; i++) {
    const account = d.waiters[i]!.account;
    if (seen.has(account)) continue;
    seen.add(account);
    const running = d.byAccount.get(account) ?? 0;
    if (running < fewest) {
      fewest = running;
      best = i;
      if (running === 0) break;
    }
  }
  return best;
}

/** Counts a transaction of `account` starting (+1) or ending (-1) at the destination. */
export function countAccount(d: Destination, account: string, delta: 1 | -1): void {
  const n = (d.byAccount.get(account) ?? 0) + delta;
  if (n > 0) d.byAccount.set(account, n);
  else d.byAccount.delete(account);
}

/** Waiters at the front whose slot wait ran out, taken out of the queue (in order). */
export function takeExpiredWaiters(d: Destination, now: number): Waiter[] {
  const expired: Waiter[] = [];
  while (d.waiters.length > 0 && d.waiters[0]!.deadline <= now) expired.push(d.waiters.shift()!);
  return expired;
}

/** Waiters of the probe line whose wait ran out, taken out of it. */
export function takeExpiredProbeWaiters(line: ProbeWaiter[], now: number): ProbeWaiter[] {
  const expired = line.filter((w) => w.deadline <= now);
  if (expired.length > 0) line.splice(0, line.length, ...line.filter((w) => w.deadline > now));
  return expired;
}

/** The newest `count` waiters of `lane`, taken out of the destination's queue. */
export function takeNewestWaiters(d: Destination, lane: Lane, count: number): Waiter[] {
  const taken: Waiter[] = [];
  for (let k = d.waiters.length - 1; taken.length < count && k >= 0; k--) {
    if (d.waiters[k]!.lane === lane) taken.push(d.waiters.splice(k, 1)[0]!);
  }
  return taken;
}

/** Nothing runs, waits, or was answered within the stall time: the lane may be forgotten. */
export const laneIsUnused = (lane: Lane, now: number, stallAfterMs: number): boolean =>
  lane.active === 0 && lane.waiting === 0 && lane.probing === 0 && now - lane.answeredAt >= stallAfterMs && (lane.stalledRecipients.size === 0 || now - lastStalledAt(lane) >= STALLED_MEMORY_MS);

export const destinationIsEmpty = (d: Destination): boolean => d.active.size === 0 && d.waiters.length === 0 && d.idle.length === 0 && d.lanes.size === 0;

export function overShareError(d: Destination): SmtpError {
  return Object.assign(
    new Error(`Not tried: transactions that get no answer (at ${d.label} for these recipients, and elsewhere) hold every delivery slot not kept for mail that is answered`),
    { code: "ESLOTSHARE", enhancedCode: "4.4.5" },
  );
}

export function slotWaitError(d: Destination, slotWaitMs: number): SmtpError {
  const load = destinationLoad(d);
  return Object.assign(
    new Error(`Not tried: no connection to ${d.label} free within ${formatDuration(slotWaitMs)} (transactions running: ${load.live + load.stalled}, stalled: ${load.stalled})`),
    { code: "ESLOTWAIT", enhancedCode: "4.4.5" },
  );
}

export const stoppingError = (): SmtpError => Object.assign(new Error("Delivery is stopping"), { code: "ESLOTWAIT", enhancedCode: "4.3.2" });
