import { describe, expect, it } from "vitest";
import { TokenBuckets } from "./token-bucket";

describe("TokenBuckets (100/s, burst 200)", () => {
  it("admits a burst of 200, then refuses with Retry-After", () => {
    const b = new TokenBuckets({ ratePerSecond: 100, burst: 200 });
    for (let i = 0; i < 200; i++) expect(b.take("k", 1000).ok).toBe(true);
    expect(b.take("k", 1000)).toEqual({ ok: false, retryAfterSeconds: 1 });
  });
  it("refills at the rate", () => {
    const b = new TokenBuckets({ ratePerSecond: 100, burst: 200 });
    for (let i = 0; i < 200; i++) b.take("k", 0);
    expect(b.take("k", 0).ok).toBe(false);
    // 50 ms later: 5 tokens.
    let admitted = 0;
    for (let i = 0; i < 10; i++) if (b.take("k", 50).ok) admitted++;
    expect(admitted).toBe(5);
  });
  it("keeps keys apart and forgets idle ones", () => {
    const b = new TokenBuckets({ ratePerSecond: 1, burst: 1, idleMs: 1000 });
    expect(b.take("a", 0).ok).toBe(true);
    expect(b.take("a", 0).ok).toBe(false);
    expect(b.take("b", 0).ok).toBe(true);
    expect(b.take("a", 5000).ok).toBe(true);
  });
});
