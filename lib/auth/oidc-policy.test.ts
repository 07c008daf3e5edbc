import { describe, expect, it } from "vitest";
import { claimedEmail, decideOidcSignIn, type OidcAllowList } from "./oidc-policy";

const none: OidcAllowList = { domains: [], emails: [] };
const listed: OidcAllowList = { domains: ["corp.example"], emails: ["contractor@gmail.example"] };
const staff = new Set(["owner@example.com", "sam@corp.example"]);
const isStaff = (e: string) => staff.has(e);

describe("OIDC sign-in policy", () => {
  it("refuses an unverified email, even a staff user's (the owner included), with or without a list", () => {
    for (const verified of [false, undefined, "true", 1, null]) {
      for (const allow of [none, listed]) {
        expect(decideOidcSignIn({ email: "owner@example.com", email_verified: verified }, allow, isStaff)).toEqual({ allow: false, reason: "unverified" });
        expect(decideOidcSignIn({ email: "new@corp.example", email_verified: verified }, allow, isStaff)).toEqual({ allow: false, reason: "unverified" });
      }
    }
  });

  it("signs an existing staff user in by their verified email, listed or not, case-insensitively", () => {
    expect(decideOidcSignIn({ email: "Owner@Example.COM", email_verified: true }, none, isStaff)).toEqual({ allow: true, email: "owner@example.com", create: false });
    expect(decideOidcSignIn({ email: "owner@example.com", email_verified: true }, listed, isStaff)).toEqual({ allow: true, email: "owner@example.com", create: false });
  });

  it("without an allow-list, a verified identity that is not staff is refused", () => {
    expect(decideOidcSignIn({ email: "eve@corp.example", email_verified: true }, none, isStaff)).toEqual({ allow: false, reason: "not-listed" });
  });

  it("with an allow-list, admits a new identity of a listed domain or a listed address, to be created", () => {
    expect(decideOidcSignIn({ email: "new@corp.example", email_verified: true }, listed, isStaff)).toEqual({ allow: true, email: "new@corp.example", create: true });
    expect(decideOidcSignIn({ email: "Contractor@gmail.example", email_verified: true }, listed, isStaff)).toEqual({
      allow: true,
      email: "contractor@gmail.example",
      create: true,
    });
  });

  it("matches the domain exactly: no subdomain, no suffix, no look-alike", () => {
    for (const email of ["a@sub.corp.example", "a@evilcorp.example", "a@corp.example.evil", "corp.example@evil.example", "other@gmail.example"]) {
      expect(decideOidcSignIn({ email, email_verified: true }, listed, isStaff), email).toEqual({ allow: false, reason: "not-listed" });
    }
  });

  it("refuses a missing or malformed email claim", () => {
    for (const claims of [null, undefined, {}, { email: 42, email_verified: true }, { email: "", email_verified: true }, { email: "no-at-sign", email_verified: true }, { email: "a@b@corp.example", email_verified: true }, { email: "a b@corp.example", email_verified: true }, { email: `${"a".repeat(250)}@corp.example`, email_verified: true }]) {
      expect(decideOidcSignIn(claims as Record<string, unknown>, listed, isStaff)).toEqual({ allow: false, reason: "no-email" });
    }
    expect(claimedEmail({ email: "  Ann@Corp.Example " })).toBe("ann@corp.example");
  });
});
