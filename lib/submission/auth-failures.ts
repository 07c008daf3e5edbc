import { rateKeyOf } from "../inbound/smtp-limits";

/**
 * Failed AUTH attempts per client address (IPv6: per /64, like the inbound
 * server's connection rate) in fixed one-minute windows; past the limit
 * AUTH is refused (454) until the window ends, whether or not the next
 * password is right, so guessing API keys over SMTP goes no faster than
 * that. Memory is bounded: at most `maxKeys` addresses per window.
 */
export class AuthFailures {
  private counts = new Map<string, number>();
  private windowStart = 0;

  constructor(
    private readonly perMinute: number,
    private readonly maxKeys = 100_000,
  ) {}

  private roll(nowMs: number) {
    if (nowMs - this.windowStart >= 60_000) {
      this.counts = new Map();
      this.windowStart = nowMs;
    }
  }

  blocked(address: string, nowMs: number = Date.now()): boolean {
    this.roll(nowMs);
    return (this.counts.get(rateKeyOf(address)) ?? 0) >= this.perMinute;
  }

  fail(address: string, nowMs: number = Date.now()): void {
    this.roll(nowMs);
    if (this.counts.size >= this.maxKeys) this.counts = new Map();
    const key = rateKeyOf(address);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
}
