/**
 * The request-rate limit of the endpoints other than POST /email (docs/contract.md
 * §6.4): a token bucket per API key, 100 requests per second with bursts
 * of 200. Kept in process memory: with N app processes a key gets up to N
 * times the rate; the sending limits, which matter for money and reputation,
 * are enforced in the database instead.
 */
export interface BucketOptions {
  ratePerSecond: number;
  burst: number;
  /** Buckets idle this long are forgotten. */
  idleMs?: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private lastSweep = 0;

  constructor(private readonly options: BucketOptions) {}

  /** Takes one token for `key`; otherwise says how many seconds until one is available. */
  take(key: string, nowMs: number = Date.now()): { ok: true } | { ok: false; retryAfterSeconds: number } {
    this.sweep(nowMs);
    const { ratePerSecond, burst } = this.options;
    const b = this.buckets.get(key) ?? { tokens: burst, at: nowMs };
    b.tokens = Math.min(burst, b.tokens + ((nowMs - b.at) / 1000) * ratePerSecond);
    b.at = nowMs;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / ratePerSecond)) };
  }

  private sweep(nowMs: number) {
    const idle = this.options.idleMs ?? 60_000;
    if (nowMs - this.lastSweep < idle) return;
    this.lastSweep = nowMs;
    for (const [k, b] of this.buckets) if (nowMs - b.at > idle) this.buckets.delete(k);
  }
}
