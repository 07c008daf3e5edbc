import { describe, expect, it } from "vitest";
import { CLIENT_ADDRESS_HEADER, clientAddress, forwardedEntryAddress, isPublicIp, requestClientIp } from "./client-ip";

describe("clientAddress", () => {
  it("uses the socket address when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(clientAddress("::ffff:127.0.0.1", "8.8.8.8", 0)).toBe("127.0.0.1");
    expect(clientAddress("10.0.0.2", ["8.8.8.8", "9.9.9.9"], 0)).toBe("10.0.0.2");
    expect(clientAddress("10.0.0.2", "8.8.8.8", Number.NaN)).toBe("10.0.0.2");
    expect(clientAddress(undefined, "8.8.8.8", 0)).toBe("");
  });

  it("takes the Nth entry from the right behind N proxies, public or not", () => {
    // The client wrote "1.2.3.4"; our one proxy appended the address it saw.
    expect(clientAddress("10.0.0.2", "1.2.3.4, 10.9.8.7", 1)).toBe("10.9.8.7");
    expect(clientAddress("10.0.0.2", "1.2.3.4, 81.2.69.142, 10.0.0.1", 1)).toBe("10.0.0.1");
    expect(clientAddress("10.0.0.2", "1.2.3.4, 81.2.69.142, 10.0.0.1", 2)).toBe("81.2.69.142");
    expect(clientAddress("10.0.0.2", "1.2.3.4, 81.2.69.142, 10.0.0.1", 3)).toBe("1.2.3.4");
    expect(clientAddress("10.0.0.2", "192.0.2.60", 1)).toBe("192.0.2.60");
  });

  it("never searches for a public address: rotating private entries left of the trusted one change nothing", () => {
    for (let i = 0; i < 20; i++) expect(clientAddress("127.0.0.1", `10.1.${i}.${i}, 8.8.${i}.8, 10.9.8.7`, 1)).toBe("10.9.8.7");
  });

  it("uses the socket address when there are fewer entries than trusted hops (an inner proxy was reached directly)", () => {
    expect(clientAddress("10.0.0.2", "81.2.69.142", 2)).toBe("10.0.0.2");
    expect(clientAddress("10.0.0.2", "81.2.69.142, 10.0.0.1", 3)).toBe("10.0.0.2");
    expect(clientAddress("10.0.0.2", undefined, 1)).toBe("10.0.0.2");
    expect(clientAddress("10.0.0.2", [], 1)).toBe("10.0.0.2");
  });

  it("reads entries with spaces, tabs, ports and brackets", () => {
    expect(clientAddress("10.0.0.2", "  1.2.3.4 ,\t 81.2.69.142  ", 1)).toBe("81.2.69.142");
    expect(clientAddress("10.0.0.2", "1.2.3.4,81.2.69.142", 2)).toBe("1.2.3.4");
    expect(clientAddress("10.0.0.2", "81.2.69.142:5123", 1)).toBe("81.2.69.142");
    expect(clientAddress("10.0.0.2", "[2001:db8::7]:443", 1)).toBe("2001:db8::7");
    expect(clientAddress("10.0.0.2", "[2001:db8::7]", 1)).toBe("2001:db8::7");
    expect(clientAddress("10.0.0.2", "2001:DB8:0::7", 1)).toBe("2001:db8::7");
    expect(clientAddress("10.0.0.2", "::ffff:81.2.69.142", 1)).toBe("81.2.69.142");
  });

  it("treats several X-Forwarded-For header lines as one list in their order", () => {
    // The client's own header line first, the proxy's appended line last.
    expect(clientAddress("10.0.0.2", ["6.6.6.6, 7.7.7.7", "10.9.8.7"], 1)).toBe("10.9.8.7");
    expect(clientAddress("10.0.0.2", ["6.6.6.6, 7.7.7.7", "10.9.8.7"], 2)).toBe("7.7.7.7");
    expect(clientAddress("10.0.0.2", ["", "10.9.8.7"], 1)).toBe("10.9.8.7");
    expect(clientAddress("10.0.0.2", ["", "10.9.8.7"], 2)).toBe("10.0.0.2"); // the entry there is empty
  });

  it("uses the socket address when the entry at the trusted place is not an address", () => {
    for (const garbage of ["garbage", "unknown", "", " ", "1.2.3.4.5", "127.1", "0x7f.0.0.1", "1.2.3.4:99999", "1.2.3.4:", "1.2.3.4:abc", "[::1", "[::1]x", "[1.2.3.4]", "::1::2", "a".repeat(5000), "1.2.3.4 5.6.7.8", "\u0000"]) {
      expect(clientAddress("10.0.0.2", `81.2.69.142, ${garbage}`, 1)).toBe("10.0.0.2");
    }
    // Garbage left of the trusted entries is the client's business.
    expect(clientAddress("10.0.0.2", "garbage,,, ,81.2.69.142", 1)).toBe("81.2.69.142");
    expect(clientAddress("10.0.0.2", "81.2.69.142,", 1)).toBe("10.0.0.2");
  });

  it("stays fast on a header of thousands of entries", () => {
    const long = Array.from({ length: 5000 }, (_, i) => `10.0.${i % 256}.${i % 200}`).join(", ");
    const started = performance.now();
    expect(clientAddress("127.0.0.1", `${long}, 81.2.69.142`, 1)).toBe("81.2.69.142");
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe("forwardedEntryAddress", () => {
  it("accepts the forms proxies write and nothing else", () => {
    expect(forwardedEntryAddress(" 203.0.113.7 ")).toBe("203.0.113.7");
    expect(forwardedEntryAddress("203.0.113.7:80")).toBe("203.0.113.7");
    expect(forwardedEntryAddress("fe80::1")).toBe("fe80::1");
    expect(forwardedEntryAddress("[fe80::1]:8080")).toBe("fe80::1");
    expect(forwardedEntryAddress("_hidden")).toBe("");
    expect(forwardedEntryAddress("1.2.3")).toBe("");
  });
});

describe("isPublicIp", () => {
  it("knows private addresses", () => {
    expect(isPublicIp("192.168.1.1")).toBe(false);
    expect(isPublicIp("::1")).toBe(false);
    expect(isPublicIp("81.2.69.142")).toBe(true);
  });
});

describe("requestClientIp", () => {
  it("reads only the address server.ts resolved, never X-Forwarded-For", () => {
    const h = new Headers({ [CLIENT_ADDRESS_HEADER]: "::ffff:10.0.0.2", "x-forwarded-for": "81.2.69.142" });
    expect(requestClientIp(h)).toBe("10.0.0.2");
    expect(requestClientIp(new Headers({ "x-forwarded-for": "81.2.69.142" }))).toBe("");
    expect(requestClientIp(new Headers({ [CLIENT_ADDRESS_HEADER]: "garbage" }))).toBe("");
    expect(requestClientIp(undefined)).toBe("");
  });
});
