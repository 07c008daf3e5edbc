import { describe, expect, it } from "vitest";
import { checkDomainDns, describeFailedCheck, txtResolverFor, type TxtResolver } from "./domain-verification";
import type { SenderDomainRow } from "./sender-domains";

const domain: SenderDomainRow = {
  id: "00000000-0000-4000-8000-000000000001",
  accountId: "00000000-0000-4000-8000-000000000002",
  name: "shop.example",
  status: "pending",
  verificationToken: "abc123",
  dkimSelector: "mailroom",
  dkimPrivateKey: "",
  dkimPublicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjAN\nBgkqhkiG\n-----END PUBLIC KEY-----\n",
  createdAt: new Date(0),
  verifiedAt: null,
};

function zone(records: Record<string, string[][]>, failing?: string): TxtResolver {
  return async (name) => {
    if (failing) throw Object.assign(new Error(`query failed`), { code: failing });
    const r = records[name];
    if (!r) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
    return r;
  };
}

describe("checkDomainDns", () => {
  it("verifies when the _mailroom TXT record carries the token, among other records", async () => {
    const check = await checkDomainDns(
      domain,
      zone({ "_mailroom.shop.example": [["google-site-verification=x"], ["mailroom-verification=abc123"]] }),
    );
    expect(check).toMatchObject({ domain: "shop.example", verified: true, dkimFound: false });
    expect(check.error).toBeUndefined();
  });

  it("joins the character strings of a long TXT record", async () => {
    const check = await checkDomainDns(
      domain,
      zone({
        "_mailroom.shop.example": [["mailroom-verifi", "cation=abc123"]],
        "mailroom._domainkey.shop.example": [["v=DKIM1; k=rsa; ", "p=MIIBIjANBgkqhkiG"]],
      }),
    );
    expect(check).toMatchObject({ verified: true, dkimFound: true });
  });

  it("does not verify with another token, and says what it found", async () => {
    const check = await checkDomainDns(domain, zone({ "_mailroom.shop.example": [["mailroom-verification=other"]] }));
    expect(check.verified).toBe(false);
    expect(describeFailedCheck(check)).toBe(
      'The TXT record at _mailroom.shop.example does not match: expected "mailroom-verification=abc123", found "mailroom-verification=other"',
    );
  });

  it("does not verify when the record is missing, and says what to publish", async () => {
    const check = await checkDomainDns(domain, zone({}));
    expect(check.verified).toBe(false);
    expect(check.error).toBeUndefined();
    expect(describeFailedCheck(check)).toBe(
      'No TXT record found at _mailroom.shop.example: publish "mailroom-verification=abc123" there, then verify again',
    );
  });

  it("reports a DNS failure as such, not as a missing record", async () => {
    const check = await checkDomainDns(domain, zone({}, "ETIMEOUT"));
    expect(check.verified).toBe(false);
    expect(describeFailedCheck(check)).toBe("DNS lookup of _mailroom.shop.example failed (ETIMEOUT); try again later");
  });
});

describe("txtResolverFor", () => {
  it("accepts IP addresses with optional ports and refuses anything else", () => {
    expect(() => txtResolverFor(["127.0.0.1:5353"])).not.toThrow();
    expect(() => txtResolverFor(["[::1]:53"])).not.toThrow();
    expect(() => txtResolverFor(["dns.example"])).toThrow();
  });
});
