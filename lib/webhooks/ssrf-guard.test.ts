import { describe, expect, it } from "vitest";
import { isPublicAddress, refusedRangeOf, resolveDestination, SsrfRefusedError, type Resolver } from "./ssrf-guard";

describe("refusedRangeOf: the address table", () => {
  const refused: [string, string][] = [
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["100.127.255.254", "carrierGradeNat"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["192.0.2.10", "reserved"],
    ["240.0.0.1", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "linkLocal"],
    ["fc00::1", "uniqueLocal"],
    ["fd12:3456::1", "uniqueLocal"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "ipv4Mapped"],
    ["::ffff:10.0.0.1", "ipv4Mapped"],
    ["::ffff:8.8.8.8", "ipv4Mapped"],
    ["::7f00:1", "ipv4Compatible"],
    ["fec0::1", "deprecatedSiteLocal"],
    ["64:ff9b::7f00:1", "rfc6052"],
    ["2002:7f00:1::", "6to4"],
    ["2001::1", "teredo"],
    ["2001:db8::1", "reserved"],
    ["not-an-ip", "invalid"],
  ];
  it.each(refused)("refuses %s (%s)", (address, range) => {
    expect(refusedRangeOf(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "2a00:1450:4001::200e"])(
    "accepts the public address %s",
    (address) => {
      expect(refusedRangeOf(address)).toBeUndefined();
    },
  );
});

describe("resolveDestination", () => {
  const table: Record<string, string[]> = {
    "public.test": ["93.184.216.34"],
    "internal.test": ["10.1.2.3"],
    "mixed.test": ["93.184.216.34", "127.0.0.1"],
    "v6.test": ["2606:4700:4700::1111"],
  };
  let lookups = 0;
  const resolver: Resolver = async (host) => {
    lookups++;
    const list = table[host];
    if (!list) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  const guard = (url: string, allowPrivate = false) => resolveDestination(new URL(url), { allowPrivate, resolver });

  it("pins the checked address of a public name", async () => {
    await expect(guard("https://public.test/hook")).resolves.toEqual({ address: "93.184.216.34", family: 4 });
    await expect(guard("https://v6.test/hook")).resolves.toEqual({ address: "2606:4700:4700::1111", family: 6 });
  });

  it("refuses a name that resolves to an internal address", async () => {
    await expect(guard("https://internal.test/")).rejects.toThrow(SsrfRefusedError);
    await expect(guard("https://internal.test/")).rejects.toThrow(/10\.1\.2\.3.*private/);
  });

  it("refuses a name when any of its addresses is internal", async () => {
    await expect(guard("https://mixed.test/")).rejects.toThrow(/127\.0\.0\.1/);
  });

  it("refuses a name that does not resolve, saying so", async () => {
    await expect(guard("https://nowhere.test/")).rejects.toThrow(/does not resolve \(ENOTFOUND\)/);
    await expect(guard("https://nowhere.test/")).rejects.toMatchObject({ kind: "unresolvable" });
    await expect(guard("https://internal.test/")).rejects.toMatchObject({ kind: "internal" });
  });

  it("checks IP literals without a lookup, in every spelling the URL parser normalises", async () => {
    lookups = 0;
    for (const url of [
      "http://127.0.0.1/",
      "http://2130706433/",
      "http://0x7f.0.0.1/",
      "http://017700000001/",
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:a9fe:a9fe]/",
      "http://169.254.169.254/latest/meta-data",
      "http://[fd00::1]:8080/",
      "http://0.0.0.0:3000/",
    ]) {
      await expect(guard(url), url).rejects.toThrow(SsrfRefusedError);
    }
    await expect(guard("http://8.8.8.8/")).resolves.toEqual({ address: "8.8.8.8", family: 4 });
    await expect(guard("http://[2606:4700:4700::1111]/")).resolves.toEqual({ address: "2606:4700:4700::1111", family: 6 });
    expect(lookups).toBe(0);
  });

  it("accepts internal destinations when the operator allows them, still pinning one address", async () => {
    await expect(guard("http://127.0.0.1:9/", true)).resolves.toEqual({ address: "127.0.0.1", family: 4 });
    await expect(guard("https://internal.test/", true)).resolves.toEqual({ address: "10.1.2.3", family: 4 });
    await expect(guard("https://nowhere.test/", true)).rejects.toThrow(/does not resolve/);
  });
});
