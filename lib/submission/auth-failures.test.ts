import { describe, expect, it } from "vitest";
import { AuthFailures } from "./auth-failures";

describe("AuthFailures", () => {
  it("blocks an address after perMinute failures until its minute ends; other addresses go on", () => {
    const f = new AuthFailures(3);
    const t = 1_000_000;
    for (let i = 0; i < 3; i++) {
      expect(f.blocked("192.0.2.1", t + i)).toBe(false);
      f.fail("192.0.2.1", t + i);
    }
    expect(f.blocked("192.0.2.1", t + 10)).toBe(true);
    expect(f.blocked("::ffff:192.0.2.1", t + 10)).toBe(true); // the same client, IPv4-mapped
    expect(f.blocked("192.0.2.2", t + 10)).toBe(false);
    expect(f.blocked("192.0.2.1", t + 60_000)).toBe(false);
  });

  it("counts an IPv6 /64 as one client", () => {
    const f = new AuthFailures(2);
    f.fail("2001:db8:1:2::1", 0);
    f.fail("2001:db8:1:2:ffff::9", 1);
    expect(f.blocked("2001:db8:1:2::77", 2)).toBe(true);
    expect(f.blocked("2001:db8:1:3::1", 2)).toBe(false);
  });

  it("keeps at most maxKeys addresses", () => {
    const f = new AuthFailures(1, 100);
    for (let i = 0; i < 10_000; i++) f.fail(`10.0.${i >> 8}.${i & 255}`, 0);
    expect((f as unknown as { counts: Map<string, number> }).counts.size).toBeLessThanOrEqual(100);
  });
});
