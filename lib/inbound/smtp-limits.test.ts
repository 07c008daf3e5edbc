import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ConcurrentConnections, ConnectionRate, rateKeyOf, readBoundedMessage, SpentBudgets } from "./smtp-limits";

describe("ConcurrentConnections", () => {
  it("admits perAddress open connections per address, and one more once one closes", () => {
    const open = new ConcurrentConnections(2);
    const a = open.admit("192.0.2.1");
    const b = open.admit("::ffff:192.0.2.1"); // the same client, IPv4-mapped
    expect(a).toBe("192.0.2.1");
    expect(b).toBe("192.0.2.1");
    expect(open.admit("192.0.2.1")).toBeUndefined();
    expect(open.admit("192.0.2.2")).toBeDefined(); // another address has its own count
    open.release(a!);
    expect(open.countOf("192.0.2.1")).toBe(1);
    expect(open.admit("192.0.2.1")).toBe("192.0.2.1");
    expect(open.admit("192.0.2.1")).toBeUndefined();
  });

  it("counts an IPv6 /64 as one client", () => {
    const open = new ConcurrentConnections(1);
    expect(open.admit("2001:db8:1:2::1")).toBeDefined();
    expect(open.admit("2001:db8:1:2:ffff::9")).toBeUndefined();
    expect(open.admit("2001:db8:1:3::1")).toBeDefined();
  });

  it("forgets an address once its last connection closes (memory bounded by open connections)", () => {
    const open = new ConcurrentConnections(3);
    const keys = Array.from({ length: 1000 }, (_, i) => open.admit(`10.0.${i >> 8}.${i & 255}`)!);
    expect(open.size).toBe(1000);
    for (const k of keys) open.release(k);
    expect(open.size).toBe(0);
    open.release("10.9.9.9"); // a stray release never goes negative
    expect(open.countOf("10.9.9.9")).toBe(0);
  });
});

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

describe("SpentBudgets", () => {
  const hour = Date.UTC(2026, 0, 1, 10);
  it("remembers a spent budget until the hour ends, per scope and key", () => {
    const spent = new SpentBudgets();
    spent.note("address", "192.0.2.1", hour + 10);
    expect(spent.isSpent("address", "192.0.2.1", hour + 3_599_999)).toBe(true);
    expect(spent.isSpent("account", "192.0.2.1", hour + 20)).toBe(false);
    expect(spent.isSpent("address", "192.0.2.2", hour + 20)).toBe(false);
    expect(spent.isSpent("address", "192.0.2.1", hour + 3_600_000)).toBe(false);
  });

  it("remembers at most maxKeys", () => {
    const spent = new SpentBudgets(2);
    for (const key of ["a", "b", "c"]) spent.note("account", key, hour);
    expect(["a", "b", "c"].map((k) => spent.isSpent("account", k, hour))).toEqual([true, true, false]);
  });
});
