import { describe, expect, it } from "vitest";
import { alignmentCheck, ptrCheck, relaxedAligned, returnPathMxCheck, reverseName, spfCheck } from "./path-checks";

const ok = <T>(...values: T[]) => ({ ok: true as const, values });

describe("spfCheck", () => {
  const suggested = { type: "TXT" as const, name: "bounces.example.com", value: "v=spf1 a:mta.example.net ~all" };
  it("passes only when every sending address passes", () => {
    expect(spfCheck([{ ip: "192.0.2.1", result: "pass" }], suggested).status).toBe("pass");
    const r = spfCheck([{ ip: "192.0.2.1", result: "pass" }, { ip: "2001:db8::1", result: "fail", record: "v=spf1 ip4:192.0.2.1 -all" }], suggested);
    expect(r).toMatchObject({ status: "fail", fix: suggested });
    expect(r.detail).toContain("2001:db8::1");
  });
  it("fails on no record or a permerror (too many lookups), warns on softfail, neutral and temperror", () => {
    expect(spfCheck([{ ip: "192.0.2.1", result: "none" }], suggested).detail).toContain("No SPF record");
    expect(spfCheck([{ ip: "192.0.2.1", result: "permerror", comment: "Too many DNS requests" }], suggested).detail).toContain("Too many DNS requests");
    expect(spfCheck([{ ip: "192.0.2.1", result: "softfail" }], suggested).status).toBe("warn");
    expect(spfCheck([{ ip: "192.0.2.1", result: "temperror" }], suggested).status).toBe("warn");
  });
  it("warns when the instance has no known sending address", () => {
    expect(spfCheck([], suggested).status).toBe("warn");
  });
});

describe("alignmentCheck", () => {
  const base = { fromDomain: "mail.example.com", dkimDomain: "mail.example.com", dkimPublished: true };
  it("relaxed alignment without a record: equal or one under the other", () => {
    expect(relaxedAligned("mail.example.com", "bounces.mail.example.com")).toBe(true);
    expect(relaxedAligned("mail.example.com", "example.com")).toBe(true);
    expect(relaxedAligned("mail.example.com", "bounces.example.net")).toBe(false);
    expect(relaxedAligned("mail.example.com", "xmail.example.com")).toBe(false);
  });
  it("passes with both aligned, warns on DKIM alone (a shared bounce domain), fails with neither", () => {
    expect(alignmentCheck({ ...base, returnPathDomain: "bounces.mail.example.com" }).status).toBe("pass");
    expect(alignmentCheck({ ...base, returnPathDomain: "bounces.mailroom.net" }).status).toBe("warn");
    expect(alignmentCheck({ ...base, returnPathDomain: "bounces.mailroom.net", dkimPublished: false }).status).toBe("fail");
  });
  it("follows the DMARC record's verdict when there is one (strict alignment, organizational domain)", () => {
    const r = alignmentCheck({ ...base, returnPathDomain: "bounces.mail.example.com", dmarc: { dkimAligned: true, spfAligned: false } });
    expect(r.status).toBe("warn");
  });
});

describe("returnPathMxCheck", () => {
  const base = { returnPathDomain: "bounces.example.com", heloName: "mta.example.net", mxAddresses: new Map<string, string[]>(), instanceAddresses: ["192.0.2.1"] };
  it("passes on an MX naming the EHLO name or an address of the instance", () => {
    expect(returnPathMxCheck({ ...base, mx: ok({ exchange: "MTA.example.net", priority: 10 }) }).status).toBe("pass");
    expect(returnPathMxCheck({ ...base, mx: ok({ exchange: "in.example.net", priority: 10 }), mxAddresses: new Map([["in.example.net", ["192.0.2.1"]]]) }).status).toBe("pass");
  });
  it("fails with the MX to publish when absent or elsewhere", () => {
    const fix = { type: "MX", name: "bounces.example.com", value: "10 mta.example.net" };
    expect(returnPathMxCheck({ ...base, mx: ok() })).toMatchObject({ status: "fail", fix });
    expect(returnPathMxCheck({ ...base, mx: ok({ exchange: "mx.other.org", priority: 5 }) })).toMatchObject({ status: "fail", fix });
  });
});

describe("ptrCheck", () => {
  it("names reverse zones of IPv4 and IPv6 (with ::)", () => {
    expect(reverseName("192.0.2.1")).toBe("1.2.0.192.in-addr.arpa");
    expect(reverseName("2001:db8::1")).toBe(`1.${"0.".repeat(23)}8.b.d.0.1.0.0.2.ip6.arpa`);
  });
  it("passes when each address's PTR is the EHLO name, fails with the PTR to ask for", () => {
    expect(ptrCheck("mta.example.net", [{ ip: "192.0.2.1", names: ok("mta.example.net.") }]).status).toBe("pass");
    const r = ptrCheck("mta.example.net", [{ ip: "192.0.2.1", names: ok("host-1.isp.example") }]);
    expect(r).toMatchObject({ status: "fail", fix: { type: "PTR", name: "1.2.0.192.in-addr.arpa", value: "mta.example.net" } });
    expect(ptrCheck("mta.example.net", []).status).toBe("fail");
  });
});
