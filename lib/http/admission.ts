/**
 * The per-account line of the sending requests (docs/adr/0133): at most
 * `inProgress` requests of an account are past it at once, the next
 * `waiting` wait their turn in order, and past those a request is refused at
 * once. Each account has a line of its own, so another account's request
 * never waits behind this one's, and a burst holds at most `inProgress`
 * requests' worth of the event loop and the database at a time.
 */

export interface AdmissionBounds {
  /** Requests of one account past the line at once; 0: no line at all. */
  inProgress: number;
  /** Requests of one account waiting their turn; past them, refused. */
  waiting: number;
}

/** A place past the line (`leave` gives it to the next in line), or a refusal. */
export type Entry = { admitted: true; leave: () => void } | { admitted: false };

interface Line {
  inProgress: number;
  waiting: (() => void)[];
}

export class AccountAdmission {
  private readonly lines = new Map<string, Line>();

  constructor(private readonly bounds: AdmissionBounds) {}

  /** A place for `account`: at once when one is free, after its turn when its line has room, else refused at once. */
  async enter(account: string): Promise<Entry> {
    if (this.bounds.inProgress <= 0) return { admitted: true, leave: () => {} };
    let line = this.lines.get(account);
    if (!line) this.lines.set(account, (line = { inProgress: 0, waiting: [] }));
    if (line.inProgress < this.bounds.inProgress) line.inProgress++;
    else if (line.waiting.length < this.bounds.waiting) await new Promise<void>((turn) => line.waiting.push(turn));
    else return { admitted: false };
    let left = false;
    return {
      admitted: true,
      leave: () => {
        if (left) return;
        left = true;
        this.release(account, line);
      },
    };
  }

  /** Requests of `account` in progress and waiting (for tests and metrics). */
  sizeOf(account: string): { inProgress: number; waiting: number } {
    const line = this.lines.get(account);
    return { inProgress: line?.inProgress ?? 0, waiting: line?.waiting.length ?? 0 };
  }

  /** The place passes to the next in line, or is given back; an empty line is forgotten. */
  private release(account: string, line: Line): void {
    const next = line.waiting.shift();
    if (next) return next();
    line.inProgress--;
    if (line.inProgress === 0) this.lines.delete(account);
  }
}
