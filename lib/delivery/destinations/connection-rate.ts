/**
 * New connections a destination may be opened per minute (a shaping rule's
 * `connectionsPerMinute`, docs/delivery.md): a sliding window of the opens of
 * the last 60 s, at most `limit` of them (pure, time passed in). Kept per
 * destination by the gate (gate.ts) and asked by the SMTP client only when it
 * has no idle connection to reuse: reused connections are not new ones.
 */
export class ConnectionRate {
  private opens: number[] = [];

  constructor(private limit: number | undefined) {}

  setLimit(limit: number | undefined): void {
    this.limit = limit;
  }

  /** 0 when a connection may be opened now (it is counted); else how long until one may. */
  tryOpen(now: number): number {
    if (this.limit === undefined) return 0;
    const since = now - 60_000;
    let drop = 0;
    while (drop < this.opens.length && this.opens[drop]! <= since) drop++;
    if (drop > 0) this.opens.splice(0, drop);
    if (this.opens.length < this.limit) {
      this.opens.push(now);
      return 0;
    }
    return this.opens[this.opens.length - this.limit]! + 60_000 - now;
  }
}
