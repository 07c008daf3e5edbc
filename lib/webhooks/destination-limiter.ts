/**
 * Bounded concurrency per destination (a URL origin), so that one slow
 * receiver cannot take every worker slot. Each destination runs at most
 * `perDestination` tasks at once and keeps at most `maxWaiting` more in line;
 * past that, `tryRun` refuses and the caller defers the work.
 */
export class DestinationLimiter {
  private readonly lanes = new Map<string, { running: number; waiting: (() => void)[] }>();

  constructor(
    readonly perDestination: number,
    readonly maxWaiting: number,
  ) {}

  /** Starts `task` now or when a slot frees up; false when the destination's line is full (task not taken). */
  tryRun(key: string, task: () => Promise<void>): boolean {
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
          const next = l.waiting.shift();
          if (next) next();
          else if (l.running === 0) this.lanes.delete(key);
        });
    };
    if (l.running < this.perDestination) {
      start();
      return true;
    }
    if (l.waiting.length >= this.maxWaiting) return false;
    l.waiting.push(start);
    return true;
  }

  /** Tasks running or waiting for `key`. */
  load(key: string): number {
    const lane = this.lanes.get(key);
    return lane ? lane.running + lane.waiting.length : 0;
  }

  /** Drops every waiting task (they never start); returns how many were dropped. */
  dropWaiting(): number {
    let n = 0;
    for (const lane of this.lanes.values()) {
      n += lane.waiting.length;
      lane.waiting.length = 0;
    }
    return n;
  }
}
