import { describe, expect, it } from "vitest";
import { dkimCheck, dkimPublicKeyOf, dmarcCheck, trackingCheck, verificationCheck } from "./record-checks";

const ok = (...values: string[]) => ({ ok: true as const, values });
const broken = { ok: false as const, error: "DNS lookup of TXT x failed (ETIMEOUT)" };

describe("verificationCheck", () => {
  const expected = { type: "TXT" as const, name: "_mailroom.mail.example.com", value: "mailroom-verification=abc" };
  it("passes when one TXT record is the token, whatever else is there", () => {
    expect(verificationCheck(ok("v=spf1 -all", " mailroom-verification=abc "), expected)).toMatchObject({ status: "pass", fix: null });
  });
  it("fails with the record to publish when absent or different", () => {
    expect(verificationCheck(ok(), expected)).toMatchObject({ status: "fail", fix: expected });
    const other = verificationCheck(ok("mailroom-verification=old"), expected);
    expect(other.status).toBe("fail");
    expect(other.detail).toContain('found "mailroom-verification=old"');
  });
  it("warns, not fails, when the lookup itself failed", () => {
    expect(verificationCheck(broken, expected)).toMatchObject({ status: "warn", fix: expected });
  });
});

describe("dkimCheck", () => {
  const expected = { type: "TXT" as const, name: "mailroom._domainkey.example.com", value: "v=DKIM1; k=rsa; p=MIIBKEY" };
  it("reads p= among the tags, spaces inside the key ignored", () => {
    expect(dkimPublicKeyOf("v=DKIM1; k=rsa; p=MII BKEY")).toBe("MIIBKEY");
    expect(dkimPublicKeyOf("v=DKIM1; k=rsa")).toBeUndefined();
  });
  it("passes on the key in use, fails on another key, a revoked one or none", () => {
    expect(dkimCheck(ok("v=DKIM1; p=MIIB KEY"), expected).status).toBe("pass");
    expect(dkimCheck(ok("v=DKIM1; p=OTHER"), expected)).toMatchObject({ status: "fail", fix: expected });
    expect(dkimCheck(ok("v=DKIM1; p="), expected).detail).toContain("revoked");
    expect(dkimCheck(ok(), expected).detail).toContain("No DKIM record");
  });
});

describe("dmarcCheck", () => {
  const suggested = { type: "TXT" as const, name: "_dmarc.example.com", value: "v=DMARC1; p=none; rua=mailto:dmarc@bounces.example.com" };
  it("fails without a record, with the record to start from", () => {
    expect(dmarcCheck({}, suggested)).toMatchObject({ status: "fail", fix: suggested });
  });
  it("warns on p=none and suggests quarantine", () => {
    const r = dmarcCheck({ record: "v=DMARC1; p=none", policy: "none" }, suggested);
    expect(r.status).toBe("warn");
    expect(r.fix?.value).toBe("v=DMARC1; p=quarantine; rua=mailto:dmarc@bounces.example.com");
  });
  it("passes on quarantine or reject, warns when pct is below 100", () => {
    expect(dmarcCheck({ record: "v=DMARC1; p=reject", policy: "reject" }, suggested).status).toBe("pass");
    expect(dmarcCheck({ record: "v=DMARC1; p=quarantine; pct=20", policy: "quarantine", pct: 20 }, suggested).status).toBe("warn");
    expect(dmarcCheck({ record: "v=DMARC1; p=bogus", policy: "bogus" }, suggested).status).toBe("fail");
  });
});

describe("trackingCheck", () => {
  const expected = { type: "CNAME" as const, name: "track.mail.example.com", value: "mailroom.example.net" };
  it("passes when the CNAME names the instance (case and root dot aside)", () => {
    expect(trackingCheck(ok("MailRoom.example.net."), expected).status).toBe("pass");
    expect(trackingCheck(ok("elsewhere.example.org"), expected)).toMatchObject({ status: "fail", fix: expected });
    expect(trackingCheck(ok(), expected).status).toBe("fail");
  });
});
