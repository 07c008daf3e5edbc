/**
 * Automatic back-off of one destination after rate complaints (pure, time
 * passed in): a complaint halves the rate Mailroom uses there (from what the
 * destination took in the last minute, or the throttle's own rate) and the
 * connections it may hold; further complaints within a cool-down do not lower
 * it again (they are the same episode: the destination's window is still
 * full). Each step without a complaint raises both by a quarter, until the
 * throttle ends where it began (docs/adr/0324).
 */

export interface BackOffOptions {
  /** How long a lowered rate holds before it is raised a step (default 30 s). */
  stepMs?: number;
  /** Lowest rate a throttle sets, per minute (default 6). */
  floorPerMinute?: number;
}

export interface Throttle {
  /** Messages per minute while throttled. */
  perMinute: number;
  /** Transactions at once while throttled. */
  connections: number;
  /** Where the throttle ends: the rate it began from. */
  ceilingPerMinute: number;
  changedAt: number;
  /** What the destination said. */
  reason: string;
}

/** Answers (2xx) of the last minute, in one-second buckets: what the destination took before it complained. */
export class AcceptedLastMinute {
  private buckets = new Array<number>(60).fill(0);
  private second = 0;

  add(now: number): void {
    this.advance(now);
    this.buckets[this.second % 60]!++;
  }

  count(now: number): number {
    this.advance(now);
    return this.buckets.reduce((a, b) => a + b, 0);
  }

  private advance(now: number): void {
    const s = Math.floor(now / 1000);
    if (s - this.second >= 60) this.buckets.fill(0);
    else for (let t = this.second + 1; t <= s; t++) this.buckets[t % 60] = 0;
    this.second = Math.max(this.second, s);
  }
}

export function complain(current: Throttle | undefined, input: { now: number; acceptedLastMinute: number; connectionsInUse: number; reason: string }, options: BackOffOptions = {}): Throttle {
  const stepMs = options.stepMs ?? 30_000;
  const floor = options.floorPerMinute ?? 6;
  if (current && input.now - current.changedAt < stepMs) return { ...current, reason: input.reason };
  const from = current ? current.perMinute : Math.max(input.acceptedLastMinute, floor * 2);
  return {
    perMinute: Math.max(floor, Math.floor(from / 2)),
    connections: Math.max(1, Math.floor((current ? current.connections : Math.max(2, input.connectionsInUse)) / 2)),
    ceilingPerMinute: current ? current.ceilingPerMinute : from,
    changedAt: input.now,
    reason: input.reason,
  };
}

/** The throttle at `now`: raised a step per stepMs since its last change, undefined once back at its ceiling. */
export function relax(current: Throttle | undefined, now: number, options: BackOffOptions = {}): Throttle | undefined {
  const stepMs = options.stepMs ?? 30_000;
  let t = current;
  while (t && now - t.changedAt >= stepMs) {
    const perMinute = Math.ceil(t.perMinute * 1.25);
    if (perMinute >= t.ceilingPerMinute) return undefined;
    t = { ...t, perMinute, connections: t.connections + 1, changedAt: t.changedAt + stepMs };
  }
  return t;
}

/** When the throttle ends if no complaint comes: the step at which relax raises it back to its ceiling. */
export function throttleEndsAt(t: Throttle, options: BackOffOptions = {}): number {
  const stepMs = options.stepMs ?? 30_000;
  let perMinute = t.perMinute;
  let at = t.changedAt;
  do {
    at += stepMs;
    perMinute = Math.ceil(perMinute * 1.25);
  } while (perMinute < t.ceilingPerMinute);
  return at;
}
