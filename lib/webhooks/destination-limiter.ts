/**
 * Bounded concurrency per destination (a URL origin), so that one slow
 * receiver cannot take every worker slot. Each destination runs at most
 * `perDestination` tasks at once and keeps at most `maxWaiting` more in line.
 * A task that waited longer than `maxWaitMs` is not run but handed back
 * (`giveBack`), so that work held in memory never outlives its claim; past
 * `maxWaiting`, `tryRun` refuses and the caller hands the work back itself.
 * A fast receiver drains its line quickly and can use a long one; a slow
 * one only ever holds `perDestination` running plus what it can drain in
 * `maxWaitMs`.
 */
export class DestinationLimiter {
  private readonly lanes = new Map<string, { running: number; waiting: { start: () => void; giveBack: () => void; since: number }[] }>();

  constructor(
    readonly perDestination: number,
    readonly maxWaiting: number,
    readonly maxWaitMs: number = Number.POSITIVE_INFINITY,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Starts `task` now or when a slot frees up; false when the destination's line is full (task not taken). */
  tryRun(key: string, task: () => Promise<void>, giveBack: () => void = () => {}): boolean {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { running: 0, waiting: [] };
      this.lanes.set(key, lane);
    }
    const l = lane;
    const start = () => {
      l.running++;
      void task()
        .catch(() => {})
        .finally(() => {
          l.running--;
          this.startNext(key, l);
        });
    };
    if (l.running < this.perDestination) {
      start();
      return true;
    }
    if (l.waiting.length >= this.maxWaiting) return false;
    l.waiting.push({ start, giveBack, since: this.clock() });
    return true;
  }

  private startNext(key: string, l: { running: number; waiting: { start: () => void; giveBack: () => void; since: number }[] }): void {
    for (let next = l.waiting.shift(); next; next = l.waiting.shift()) {
      if (this.clock() - next.since > this.maxWaitMs) {
        next.giveBack();
        continue;
      }
      next.start();
      return;
    }
    if (l.running === 0) this.lanes.delete(key);
  }

  /** Tasks running or waiting for `key`. */
  load(key: string): number {
    const lane = this.lanes.get(key);
    return lane ? lane.running + lane.waiting.length : 0;
  }

  /** Hands every waiting task back (they never start); returns how many. */
  drainWaiting(): number {
    let n = 0;
    for (const lane of this.lanes.values()) {
      for (const w of lane.waiting.splice(0)) {
        w.giveBack();
        n++;
      }
    }
    return n;
  }
}

/** The destination of a URL, for the limiter: its origin (scheme, host, port); an unparsable URL is its own. */
export function destinationOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
