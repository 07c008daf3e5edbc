import type { ThrottleRow } from "../../storage/destination-throttle-rows";
import type { Hold } from "./holds";

/** A throttle of the back-off in force, as the worker processes recorded it. */
export type QueueThrottle = ThrottleRow;

/**
 * What `mailroom queue list` and the dashboard's Queues page show (pure): one
 * row per recipient domain with pending mail, each with the holds that stop
 * it, and one row per hold that names no such domain (a provider, `relay`
 * when nothing is pending, a domain with nothing queued), so that every hold
 * in force is seen and can be resumed. Throttles of the back-off show the
 * same way: on the rows of their domain or destination, else on a row of
 * their own.
 */

/**
 * active: nothing slows it; throttled: the destination asked for a lower rate
 * and the back-off keeps to one; held: a hold stops some accounts' mail;
 * suspended: a hold stops every account's.
 */
export type QueueState = "active" | "throttled" | "held" | "suspended";

export interface PendingCounts {
  domain: string;
  queued: number;
  deferred: number;
  inFlight: number;
  accounts: number;
  nextAttemptAt: Date | null;
  oldestAt: Date | null;
  lastReplies: string[];
  attemptsLastMinute: number;
}

export interface QueueRow extends PendingCounts {
  /** What the row names: its recipient domain, or the key of a hold without a pending domain. */
  key: string;
  /** The destination the domain's mail goes to when known without a lookup (`relay` in relay and sandbox modes). */
  destination: string | null;
  state: QueueState;
  /** The holds on the row's keys (its domain, its destination). */
  holds: Hold[];
  /** Whether one of its holds was placed automatically (the dashboard's banner). */
  automatic: boolean;
  /** The back-off's throttles on the row's keys, lowest rate first. */
  throttles: QueueThrottle[];
}

/** A hold with its dates as ISO text (`mailroom queue list --json`, the dashboard's client component). */
export function holdJson(h: Hold) {
  return {
    key: h.key,
    accountId: h.accountId,
    until: h.until?.toISOString() ?? null,
    reason: h.reason,
    source: h.source,
    placedBy: h.placedBy,
    placedAt: h.placedAt.toISOString(),
  };
}

/** A row with its dates as ISO text, the same two readers. */
export function queueRowJson(r: QueueRow) {
  return {
    key: r.key,
    destination: r.destination,
    state: r.state,
    queued: r.queued,
    inFlight: r.inFlight,
    deferred: r.deferred,
    accounts: r.accounts,
    attemptsLastMinute: r.attemptsLastMinute,
    nextAttemptAt: r.nextAttemptAt?.toISOString() ?? null,
    oldestAt: r.oldestAt?.toISOString() ?? null,
    lastReplies: r.lastReplies,
    holds: r.holds.map(holdJson),
    automatic: r.automatic,
    throttles: r.throttles.map((t) => ({ key: t.key, domain: t.domain, perMinute: t.perMinute, connections: t.connections, reason: t.reason, endsAt: t.endsAt.toISOString() })),
  };
}

export type QueueRowJson = ReturnType<typeof queueRowJson>;

export function stateOf(holds: readonly Hold[], throttles: readonly QueueThrottle[] = []): QueueState {
  if (holds.some((h) => h.accountId === null)) return "suspended";
  if (holds.length > 0) return "held";
  return throttles.length > 0 ? "throttled" : "active";
}

function rowOf(counts: PendingCounts, key: string, destination: string | null, holds: Hold[], throttles: QueueThrottle[] = []): QueueRow {
  const slowest = [...throttles].sort((a, b) => a.perMinute - b.perMinute);
  return { ...counts, key, destination, state: stateOf(holds, throttles), holds, automatic: holds.some((h) => h.source === "automatic"), throttles: slowest };
}

function emptyCounts(domain: string): PendingCounts {
  return { domain, queued: 0, deferred: 0, inFlight: 0, accounts: 0, nextAttemptAt: null, oldestAt: null, lastReplies: [], attemptsLastMinute: 0 };
}

/**
 * The rows: `relayMode` says every domain's mail goes to the relay (its key
 * `relay`); holds in force only (the caller's list). Pending domains first, as given.
 */
export function queueRows(pending: readonly PendingCounts[], holds: readonly Hold[], relayMode: boolean, throttles: readonly QueueThrottle[] = []): QueueRow[] {
  const destination = relayMode ? "relay" : null;
  const shownHolds = new Set<Hold>();
  const shownThrottles = new Set<QueueThrottle>();
  const rows = pending.map((counts) => {
    const keys = [counts.domain, ...(destination ? [destination] : [])];
    const mine = holds.filter((h) => keys.includes(h.key));
    const slowing = throttles.filter((t) => t.domain === counts.domain || keys.includes(t.key));
    for (const h of mine) shownHolds.add(h);
    for (const t of slowing) shownThrottles.add(t);
    return rowOf(counts, counts.domain, destination, mine, slowing);
  });
  const rest = new Map<string, { holds: Hold[]; throttles: QueueThrottle[] }>();
  const restOf = (key: string) => rest.get(key) ?? rest.set(key, { holds: [], throttles: [] }).get(key)!;
  for (const h of holds) if (!shownHolds.has(h)) restOf(h.key).holds.push(h);
  for (const t of throttles) if (!shownThrottles.has(t)) restOf(t.key).throttles.push(t);
  for (const [key, list] of rest) rows.push(rowOf(emptyCounts(key), key, key === "relay" ? "relay" : null, list.holds, list.throttles));
  return rows;
}
