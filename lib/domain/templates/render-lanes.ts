/**
 * One line of renders per account (docs/adr/0122): at most `running` of an
 * account's renders run at once, the next `waiting` wait their turn in
 * order, and past that a render is refused at once (nothing run, nothing
 * held: a waiting render keeps its model in memory). So one account's burst
 * waits in its own line, never ahead of another account's render, and takes
 * at most `running` of the render workers.
 */

export interface LaneBounds {
  running: number;
  waiting: number;
}

interface Lane {
  running: number;
  waiting: (() => void)[];
}

export class RenderLanes {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly bounds: LaneBounds) {}

  /** `work()` in `account`'s line: its value, or `{ ok: false }` (not run) when the line is full. */
  async run<T>(account: string, work: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false }> {
    let lane = this.lanes.get(account);
    if (!lane) this.lanes.set(account, (lane = { running: 0, waiting: [] }));
    if (lane.running < this.bounds.running) lane.running++;
    else if (lane.waiting.length < this.bounds.waiting) await new Promise<void>((turn) => lane.waiting.push(turn));
    else return { ok: false };
    try {
      return { ok: true, value: await work() };
    } finally {
      this.release(account, lane);
    }
  }

  /** Renders of `account` running and waiting (for tests and metrics). */
  sizeOf(account: string): { running: number; waiting: number } {
    const lane = this.lanes.get(account);
    return { running: lane?.running ?? 0, waiting: lane?.waiting.length ?? 0 };
  }

  /** The running slot passes to the next in line, or is given back; an empty lane is forgotten. */
  private release(account: string, lane: Lane): void {
    const next = lane.waiting.shift();
    if (next) return next();
    lane.running--;
    if (lane.running === 0) this.lanes.delete(account);
  }
}
