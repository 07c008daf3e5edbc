import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ConnectionRate, rateKeyOf, readBoundedMessage } from "./smtp-limits";

describe("ConnectionRate", () => {
  it("allows perMinute connections per address in a minute, then refuses until the window slides", () => {
    const rate = new ConnectionRate(3);
    const t = 1_000_000;
    expect([0, 1, 2, 3].map((i) => rate.allow("192.0.2.1", t + i))).toEqual([true, true, true, false]);
    expect(rate.allow("192.0.2.2", t + 5)).toBe(true); // another address has its own count
    expect(rate.allow("192.0.2.1", t + 30_000)).toBe(false);
    expect(rate.allow("192.0.2.1", t + 130_000)).toBe(true); // two windows later: forgotten
  });

  it("counts an IPv6 /64 as one client, and IPv4-mapped addresses as IPv4", () => {
    const rate = new ConnectionRate(2);
    expect(rate.allow("2001:db8:1:2::1", 0)).toBe(true);
    expect(rate.allow("2001:db8:1:2:ffff::9", 1)).toBe(true);
    expect(rate.allow("2001:db8:1:2::abcd", 2)).toBe(false);
    expect(rate.allow("2001:db8:1:3::1", 3)).toBe(true);
    expect(rateKeyOf("::ffff:192.0.2.7")).toBe("192.0.2.7");
  });

  it("keeps at most maxKeys addresses", () => {
    const rate = new ConnectionRate(1, 100);
    for (let i = 0; i < 10_000; i++) rate.allow(`10.0.${i >> 8}.${i & 255}`, 0);
    const internals = rate as unknown as { current: Map<string, number>; previous: Map<string, number> };
    expect(internals.current.size + internals.previous.size).toBeLessThanOrEqual(200);
  });
});

describe("readBoundedMessage", () => {
  it("keeps a message within the bound and drops everything of one over it", async () => {
    expect(await readBoundedMessage(Readable.from([Buffer.from("abc"), Buffer.from("def")]), 6)).toEqual({ raw: Buffer.from("abcdef"), exceeded: false });
    const big = await readBoundedMessage(Readable.from([Buffer.alloc(4), Buffer.alloc(4), Buffer.alloc(4)]), 6);
    expect(big).toEqual({ raw: Buffer.alloc(0), exceeded: true });
  });
});
