import { createHash, X509Certificate } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestCa, type IssuedCertificate, type TestCa } from "../../../test/support/test-ca";
import { checkDane, type TlsaRecord } from "./dane-match";

const spki = (der: Buffer) => new X509Certificate(der).publicKey.export({ type: "spki", format: "der" }) as Buffer;
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest();
const sha512 = (b: Buffer) => createHash("sha512").update(b).digest();
const rec = (usage: number, selector: number, matchingType: number, data: Buffer): TlsaRecord => ({ usage, selector, matchingType, data });

let ca: TestCa;
let good: IssuedCertificate;
let other: IssuedCertificate;
let expired: IssuedCertificate;

beforeAll(async () => {
  ca = await createTestCa();
  good = await ca.issue(["mx.example.test"]);
  other = await ca.issue(["mx.elsewhere.test"]);
  expired = await ca.issue(["mx.example.test"], { expired: true });
});

describe("DANE matching (RFC 7672 §3)", () => {
  it("DANE-EE 3 1 1 matches the leaf's public key, whatever its name and dates", () => {
    expect(checkDane([rec(3, 1, 1, sha256(spki(good.leafDer)))], [good.leafDer, ca.caDer], "mx.example.test")).toMatchObject({ ok: true, matched: expect.stringMatching(/^3 1 1 /) });
    // No name or expiry check for DANE-EE (§3.1): the key is the identity.
    expect(checkDane([rec(3, 1, 1, sha256(spki(other.leafDer)))], [other.leafDer], "mx.example.test").ok).toBe(true);
    expect(checkDane([rec(3, 1, 1, sha256(spki(expired.leafDer)))], [expired.leafDer], "mx.example.test").ok).toBe(true);
  });

  it("DANE-EE with selector 0 and SHA-512 or exact data", () => {
    expect(checkDane([rec(3, 0, 2, sha512(good.leafDer))], [good.leafDer], "mx.example.test").ok).toBe(true);
    expect(checkDane([rec(3, 0, 0, good.leafDer)], [good.leafDer], "mx.example.test").ok).toBe(true);
  });

  it("a leaf whose key is not in the record set is refused, saying which records were tried", () => {
    const r = checkDane([rec(3, 1, 1, sha256(spki(other.leafDer)))], [good.leafDer, ca.caDer], "mx.example.test");
    expect(r).toEqual({ ok: false, reason: expect.stringContaining("no TLSA record of mx.example.test matches its certificate (3 1 1 ") });
  });

  it("DANE-TA 2 1 1 matches an issuer of the chain, and then the leaf must name the MX host", () => {
    const ta = rec(2, 1, 1, sha256(spki(ca.caDer)));
    expect(checkDane([ta], [good.leafDer, ca.caDer], "mx.example.test")).toMatchObject({ ok: true, matched: expect.stringMatching(/^2 1 1 /) });
    expect(checkDane([ta], [other.leafDer, ca.caDer], "mx.example.test")).toEqual({ ok: false, reason: expect.stringContaining("does not name mx.example.test") });
    // The anchor must be presented: a chain of the leaf alone has none.
    expect(checkDane([ta], [good.leafDer], "mx.example.test").ok).toBe(false);
  });

  it("DANE-TA refuses an anchor that did not sign the leaf", async () => {
    const stranger = await ca.issue(["mx.example.test"], { selfSigned: true });
    const ta = rec(2, 1, 1, sha256(spki(ca.caDer)));
    expect(checkDane([ta], [stranger.leafDer, ca.caDer], "mx.example.test").ok).toBe(false);
  });

  it("only PKIX records (usages 0, 1) or unknown types: TLS without authentication", () => {
    expect(checkDane([rec(1, 1, 1, Buffer.alloc(32)), rec(3, 1, 9, Buffer.alloc(32))], [good.leafDer], "mx.example.test")).toEqual({ ok: true, matched: undefined });
  });

  it("no certificate at all is refused", () => {
    expect(checkDane([rec(3, 1, 1, Buffer.alloc(32))], [], "mx.example.test").ok).toBe(false);
  });
});
