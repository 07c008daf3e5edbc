import { createHash, X509Certificate } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestCa, type IssuedCertificate } from "../../../test/support/test-ca";
import { judgeSession, planHops, type TlsFacts } from "./hop-tls";
import { parseStsPolicy, type StsPolicy } from "./mta-sts-policy-text";

const sts = (mode: string, mx: string[]): StsPolicy => {
  const r = parseStsPolicy(["version: STSv1", `mode: ${mode}`, ...mx.map((m) => `mx: ${m}`), "max_age: 86400"].join("\n"));
  if (!r.ok) throw new Error(r.reason);
  return r.policy;
};
const hops = [
  { host: "mx1.example.test", address: "127.0.0.71" },
  { host: "backup.other.test", address: "127.0.0.72" },
];
const none = () => undefined;

describe("which policy each MX host gets", () => {
  it("no policy, no DANE: opportunistic for every host", () => {
    const plan = planHops("example.test", hops, {}, none);
    expect(plan.ok && plan.hops.map((h) => h.tls.policy)).toEqual(["opportunistic", "opportunistic"]);
  });

  it("enforce MTA-STS leaves out the hosts it does not list; testing keeps them, marked", () => {
    const enforce = planHops("example.test", hops, { policy: sts("enforce", ["*.example.test"]) }, none);
    expect(enforce.ok && enforce.hops.map((h) => [h.host, h.tls.policy, h.tls.enforce])).toEqual([["mx1.example.test", "mta-sts", true]]);
    const testing = planHops("example.test", hops, { policy: sts("testing", ["*.example.test"]) }, none);
    expect(testing.ok && testing.hops.map((h) => [h.host, h.tls.listed, h.tls.enforce])).toEqual([
      ["mx1.example.test", true, false],
      ["backup.other.test", false, false],
    ]);
  });

  it("enforce MTA-STS that lists none of the hosts: nothing to send to, and why", () => {
    const plan = planHops("example.test", hops, { policy: sts("enforce", ["mx.elsewhere.test"]) }, none);
    expect(plan).toMatchObject({ ok: false, reason: expect.stringContaining("No MX host of example.test (mx1.example.test, backup.other.test) is listed by its MTA-STS policy") });
  });

  it("DANE (validated TLSA) takes precedence over MTA-STS; unvalidated TLSA is ignored", () => {
    const tlsa = { usage: 3, selector: 1, matchingType: 1, data: Buffer.alloc(32, 7) };
    const plan = planHops("example.test", hops, { policy: sts("enforce", ["*.example.test", "*.other.test"]) }, (host) =>
      host === "mx1.example.test" ? { secure: true, rcode: "NOERROR", records: [tlsa], ttl: 60 } : { secure: false, rcode: "NOERROR", records: [tlsa], ttl: 60 },
    );
    expect(plan.ok && plan.hops.map((h) => [h.tls.policy, h.tls.policyType])).toEqual([
      ["dane", "tlsa"],
      ["mta-sts", "sts"],
    ]);
    expect(plan.ok && plan.hops[0]!.tls.policyString).toEqual([`3 1 1 ${"07".repeat(32)}`]);
  });
});

describe("the verdict of a session", () => {
  let good: IssuedCertificate;
  const facts = (over: Partial<TlsFacts> = {}): TlsFacts => ({ secure: true, protocol: "TLSv1.3", cipher: "TLS_AES_256_GCM_SHA384", chainTrusted: true, nameMatches: true, chain: [good.leafDer], ...over });
  beforeAll(async () => {
    good = await (await createTestCa()).issue(["mx1.example.test"]);
  });
  const plan = (policy: StsPolicy) => {
    const p = planHops("example.test", hops.slice(0, 1), { policy }, none);
    if (!p.ok) throw new Error(p.reason);
    return p.hops[0]!.tls;
  };

  it("opportunistic: encrypted or not, never refused", () => {
    expect(judgeSession(undefined, facts())).toEqual({ verdict: { policy: "opportunistic", version: "TLSv1.3", cipher: "TLS_AES_256_GCM_SHA384", verified: true }, refuse: false });
    expect(judgeSession(undefined, facts({ secure: false }))).toEqual({ verdict: { policy: "none", verified: false }, refuse: false });
  });

  it("MTA-STS enforce: a valid certificate for the MX name passes; no STARTTLS, an expired, untrusted or wrong-name certificate is refused", () => {
    const tls = plan(sts("enforce", ["mx1.example.test"]));
    expect(judgeSession(tls, facts())).toEqual({ verdict: { policy: "mta-sts", mode: "enforce", version: "TLSv1.3", cipher: "TLS_AES_256_GCM_SHA384", verified: true }, refuse: false });
    expect(judgeSession(tls, facts({ secure: false }))).toMatchObject({ refuse: true, failure: { resultType: "starttls-not-supported" }, verdict: { verified: false } });
    expect(judgeSession(tls, facts({ chainTrusted: false, chainError: "CERT_HAS_EXPIRED" })).failure?.resultType).toBe("certificate-expired");
    expect(judgeSession(tls, facts({ chainTrusted: false, chainError: "DEPTH_ZERO_SELF_SIGNED_CERT" })).failure?.resultType).toBe("certificate-not-trusted");
    expect(judgeSession(tls, facts({ nameMatches: false }))).toMatchObject({ refuse: true, failure: { resultType: "certificate-host-mismatch" } });
  });

  it("MTA-STS testing: the same failures are recorded, never refused", () => {
    const tls = plan(sts("testing", ["mx1.example.test"]));
    expect(judgeSession(tls, facts({ nameMatches: false }))).toMatchObject({ refuse: false, failure: { resultType: "certificate-host-mismatch" }, verdict: { policy: "mta-sts", mode: "testing", verified: false } });
  });

  it("DANE: a matching TLSA record verifies; none matching is refused as tlsa-invalid", () => {
    const spki = new X509Certificate(good.leafDer).publicKey.export({ type: "spki", format: "der" }) as Buffer;
    const record = { usage: 3, selector: 1, matchingType: 1, data: createHash("sha256").update(spki).digest() };
    const dane = (data: Buffer) => {
      const p = planHops("example.test", hops.slice(0, 1), {}, () => ({ secure: true, rcode: "NOERROR", records: [{ ...record, data }], ttl: 60 }));
      if (!p.ok) throw new Error(p.reason);
      return p.hops[0]!.tls;
    };
    // DANE-EE: no name check (the wrong-name fact does not matter).
    expect(judgeSession(dane(record.data), facts({ nameMatches: false, chainTrusted: false }))).toMatchObject({ refuse: false, verdict: { policy: "dane", verified: true } });
    expect(judgeSession(dane(Buffer.alloc(32)), facts())).toMatchObject({ refuse: true, failure: { resultType: "tlsa-invalid" }, verdict: { policy: "dane", verified: false } });
    expect(judgeSession(dane(record.data), facts({ secure: false }))).toMatchObject({ refuse: true, failure: { resultType: "starttls-not-supported" } });
  });
});

describe("pooled connections under a policy", () => {
  it("are keyed by the MX name, so two names on one address never share a proven session", async () => {
    const { hopTlsKey } = await import("./hop-tls");
    const tlsa = { secure: true, rcode: "NOERROR", records: [{ usage: 3, selector: 1, matchingType: 1, data: Buffer.alloc(32) }], ttl: 60 };
    const a = planHops("a.test", [{ host: "mx.a.test", address: "127.0.0.75" }], {}, () => tlsa);
    const b = planHops("b.test", [{ host: "mx.b.test", address: "127.0.0.75" }], {}, () => tlsa);
    if (!a.ok || !b.ok) throw new Error("planned");
    expect(hopTlsKey(a.hops[0]!.tls)).not.toBe(hopTlsKey(b.hops[0]!.tls));
    // Opportunistic sessions prove nothing: they share the address's pool, as before policies.
    const c = planHops("c.test", [{ host: "mx.c.test", address: "127.0.0.75" }], {}, () => undefined);
    expect(c.ok && hopTlsKey(c.hops[0]!.tls)).toBe("");
  });
});
