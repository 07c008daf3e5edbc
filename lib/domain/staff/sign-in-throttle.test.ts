import { describe, expect, it } from "vitest";
import { throttleAddressKey, throttleEmailKey, throttleMessage } from "./sign-in-throttle";

describe("sign-in throttle policy", () => {
  it("says the wait in whole minutes, rounded up", () => {
    expect(throttleMessage(900)).toBe("Too many failed sign-ins. Try again in 15 minutes.");
    expect(throttleMessage(661)).toBe("Too many failed sign-ins. Try again in 12 minutes.");
    expect(throttleMessage(60)).toBe("Too many failed sign-ins. Try again in 1 minute.");
    expect(throttleMessage(1)).toBe("Too many failed sign-ins. Try again in 1 minute.");
  });

  it("counts IPv4 by address, IPv6 by its /64, mapped IPv4 as IPv4, garbage as unknown", () => {
    expect(throttleAddressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(throttleAddressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(throttleAddressKey("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(throttleAddressKey("::ffff:198.51.100.4")).toBe("198.51.100.4");
    expect(throttleAddressKey("")).toBe("unknown");
    expect(throttleAddressKey("not an address")).toBe("unknown");
  });

  it("counts emails case-insensitively and bounded", () => {
    expect(throttleEmailKey("  Ann@Example.COM ")).toBe("ann@example.com");
    expect(throttleEmailKey("a".repeat(5000))).toHaveLength(320);
  });
});
