import { describe, expect, it } from "vitest";
import { classifySmtpAnswer } from "./classify";
import { PRIVATE_MX_CODE, resolveHops, type MxResolver } from "./transports";

const resolver = (mx: Record<string, string[]>, a: Record<string, string[]>): MxResolver => ({
  async resolveMx(domain) {
    const hosts = mx[domain];
    if (!hosts) throw Object.assign(new Error("queryMx ENODATA"), { code: "ENODATA" });
    return hosts.map((exchange, i) => ({ exchange, priority: i * 10 }));
  },
  async resolve4(host) {
    const list = a[host];
    if (!list) throw Object.assign(new Error("queryA ENOTFOUND"), { code: "ENOTFOUND" });
    return list;
  },
});

describe("resolveHops: the address ranges of direct-MX delivery", () => {
  it("refuses a domain whose MX resolves only to loopback, and says why", async () => {
    const r = resolver({ "mx.example": ["mail.mx.example"] }, { "mail.mx.example": ["127.0.0.1"] });
    const err = await resolveHops(r, "mx.example").catch((e: Error & { code?: string }) => e);
    expect(err).toMatchObject({
      code: PRIVATE_MX_CODE,
      message: "MX host mail.mx.example resolves only to private/reserved addresses (127.0.0.1); set MAILROOM_ALLOW_PRIVATE_MX=true to allow",
    });
    expect(classifySmtpAnswer({ errorCode: PRIVATE_MX_CODE, response: (err as Error).message })).toMatchObject({
      outcome: "failed",
      enhancedCode: "5.4.4",
      diagnostic: (err as Error).message,
      suppress: false,
    });
  });

  it("refuses private, link-local, CGNAT, mapped and literal addresses alike", async () => {
    for (const address of ["10.1.2.3", "192.168.0.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "::ffff:127.0.0.1", "fd00::1"]) {
      const r = resolver({ "x.example": [address] }, {});
      await expect(resolveHops(r, "x.example")).rejects.toMatchObject({ code: PRIVATE_MX_CODE });
    }
    // A domain without MX falls back to its own A record: checked the same way.
    await expect(resolveHops(resolver({}, { "a.example": ["172.16.0.9"] }), "a.example")).rejects.toMatchObject({ code: PRIVATE_MX_CODE });
  });

  it("skips refused addresses and keeps the public ones, in preference order", async () => {
    const r = resolver({ "m.example": ["in1.m.example", "in2.m.example"] }, { "in1.m.example": ["10.0.0.1", "192.0.2.10"], "in2.m.example": ["203.0.113.5"] });
    // 192.0.2.0/24 and 203.0.113.0/24 are documentation ranges: refused too.
    await expect(resolveHops(r, "m.example")).rejects.toMatchObject({ code: PRIVATE_MX_CODE, message: expect.stringMatching(/^The MX hosts of m\.example/) });
    const mixed = resolver({ "m.example": ["in1.m.example", "in2.m.example"] }, { "in1.m.example": ["10.0.0.1"], "in2.m.example": ["8.8.8.8"] });
    expect(await resolveHops(mixed, "m.example")).toEqual([{ host: "in2.m.example", address: "8.8.8.8" }]);
  });

  it("accepts every address with allowPrivate", async () => {
    const r = resolver({ "mx.example": ["mail.mx.example"] }, { "mail.mx.example": ["127.0.0.1"] });
    expect(await resolveHops(r, "mx.example", { allowPrivate: true })).toEqual([{ host: "mail.mx.example", address: "127.0.0.1" }]);
  });
});
