/**
 * Message rates of one destination (pure, time passed in): a generic cell
 * rate algorithm per window (per second, minute, hour): a limit of L per
 * window is one message every window/L, after a burst of at most `burst`
 * of L (so any window holds at most L plus that burst).
 * `reserve` answers when a message that cannot go now may go: the moments
 * handed out are spread one interval apart, so that mail deferred by a
 * throttle comes back at the destination's rate, not all at once. Each
 * account has its own chain of moments (docs/adr/0325): one tenant's
 * thousands of deferred copies never put another's one copy a hundred
 * seconds out; where chains meet on a moment, the loser is deferred again,
 * one interval further along its own chain.
 */

/** Accounts whose chain of moments is kept, at most; chains in the past are dropped first. */
const MAX_CHAINS = 10_000;

export interface RateLimits {
  perSecond?: number;
  perMinute?: number;
  perHour?: number;
  /** Burst allowed on top of the steady rate, as a fraction of the window's limit (default 0.1; 0: evenly spaced). */
  burst?: number;
}

interface Window {
  periodMs: number;
  limit: number;
  /** Theoretical arrival time of the next message. */
  tat: number;
}

export class RateLimiter {
  private windows: Window[] = [];
  /** Per account: the moment after the last one handed out. */
  private reservedUntil = new Map<string, number>();
  private burst = 0.1;

  constructor(limits: RateLimits = {}) {
    this.setLimits(limits);
  }

  /** Changes the limits, keeping what was spent (the windows' schedules). */
  setLimits(limits: RateLimits): void {
    this.burst = Math.min(1, Math.max(0, limits.burst ?? 0.1));
    const wanted: [number, number | undefined][] = [
      [1000, limits.perSecond],
      [60_000, limits.perMinute],
      [3_600_000, limits.perHour],
    ];
    const old = new Map(this.windows.map((w) => [w.periodMs, w.tat]));
    this.windows = wanted
      .filter((w): w is [number, number] => w[1] !== undefined && w[1] > 0)
      .map(([periodMs, limit]) => ({ periodMs, limit, tat: old.get(periodMs) ?? 0 }));
  }

  get limited(): boolean {
    return this.windows.length > 0;
  }

  /** How long until a message may go (0: now). */
  waitMs(now: number): number {
    let wait = 0;
    for (const w of this.windows) wait = Math.max(wait, w.tat - this.toleranceMs(w) - now);
    return Math.max(0, wait);
  }

  /** Counts a message sent now. */
  take(now: number): void {
    for (const w of this.windows) w.tat = Math.max(w.tat, now) + w.periodMs / w.limit;
  }

  /** A moment at which `account`'s message that cannot go now may try again: after the others handed out to that account. */
  reserve(now: number, account = ""): number {
    const at = Math.max(now + this.waitMs(now), this.reservedUntil.get(account) ?? 0);
    this.reservedUntil.delete(account);
    this.reservedUntil.set(account, at + this.intervalMs());
    if (this.reservedUntil.size > MAX_CHAINS) this.forget(now);
    return at;
  }

  /** Drops the chains whose moments have all passed; past the bound still, the least recently used. */
  private forget(now: number): void {
    for (const [account, until] of this.reservedUntil) if (until <= now) this.reservedUntil.delete(account);
    for (const account of this.reservedUntil.keys()) {
      if (this.reservedUntil.size <= MAX_CHAINS) break;
      this.reservedUntil.delete(account);
    }
  }

  /** The steady interval between messages of the tightest window (0 without limits). */
  intervalMs(): number {
    return this.windows.reduce((m, w) => Math.max(m, w.periodMs / w.limit), 0);
  }

  private toleranceMs(w: Window): number {
    const interval = w.periodMs / w.limit;
    return Math.max(0, (w.periodMs - interval) * this.burst);
  }
}
