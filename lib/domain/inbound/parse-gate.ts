/**
 * At most `running` parses of whole received messages at once in a process,
 * `waiting` more in line, the rest turned away (docs/adr/0807): the signed
 * download of an attachment parses its message (up to 10 MB) per request,
 * and its URL may leak, so one URL fetched in a loop must cost a bounded
 * share of the process, not a parse per request at once.
 */
export class ParseGate {
  private active = 0;
  private readonly line: (() => void)[] = [];

  constructor(
    readonly running: number,
    readonly waiting: number,
  ) {}

  /** Resolves with the release once a parse may run; undefined at once when the line is full. */
  enter(): Promise<(() => void) | undefined> {
    if (this.active < this.running) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    if (this.line.length >= this.waiting) return Promise.resolve(undefined);
    return new Promise((resolve) => this.line.push(() => resolve(this.releaser())));
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.line.shift();
      // The slot passes to the next in line, still counted as active.
      if (next) next();
      else this.active--;
    };
  }
}
