import type { Hold } from "./holds";

/**
 * What `mailroom queue list` and the dashboard's Queues page show (pure): one
 * row per recipient domain with pending mail, each with the holds that stop
 * it, and one row per hold that names no such domain (a provider, `relay`
 * when nothing is pending, a domain with nothing queued), so that every hold
 * in force is seen and can be resumed.
 */

/** active: nothing stops it; held: a hold stops some accounts' mail; suspended: a hold stops every account's. */
export type QueueState = "active" | "held" | "suspended";

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
  };
}

export type QueueRowJson = ReturnType<typeof queueRowJson>;

export function stateOf(holds: readonly Hold[]): QueueState {
  if (holds.some((h) => h.accountId === null)) return "suspended";
  return holds.length > 0 ? "held" : "active";
}

function rowOf(counts: PendingCounts, key: string, destination: string | null, holds: Hold[]): QueueRow {
  return { ...counts, key, destination, state: stateOf(holds), holds, automatic: holds.some((h) => h.source === "automatic") };
}

function emptyCounts(domain: string): PendingCounts {
  return { domain, queued: 0, deferred: 0, inFlight: 0, accounts: 0, nextAttemptAt: null, oldestAt: null, lastReplies: [], attemptsLastMinute: 0 };
}

/**
 * The rows: `relayMode` says every domain's mail goes to the relay (its key
 * `relay`); holds in force only (the caller's list). Pending domains first, as given.
 */
export function queueRows(pending: readonly PendingCounts[], holds: readonly Hold[], relayMode: boolean): QueueRow[] {
  const destination = relayMode ? "relay" : null;
  const shown = new Set<Hold>();
  const rows = pending.map((counts) => {
    const keys = [counts.domain, ...(destination ? [destination] : [])];
    const mine = holds.filter((h) => keys.includes(h.key));
    for (const h of mine) shown.add(h);
    return rowOf(counts, counts.domain, destination, mine);
  });
  const rest = new Map<string, Hold[]>();
  for (const h of holds) if (!shown.has(h)) rest.set(h.key, [...(rest.get(h.key) ?? []), h]);
  for (const [key, list] of rest) rows.push(rowOf(emptyCounts(key), key, key === "relay" ? "relay" : null, list));
  return rows;
}
