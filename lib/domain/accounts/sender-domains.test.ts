import { describe, expect, it } from "vitest";
import { dnsRecordsFor, type SenderDomainRow } from "./sender-domains";

const row = { name: "mail.shop.test", verificationToken: "t", dkimSelector: "mailroom", dkimPublicKey: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----" } as SenderDomainRow;
const dmarcRecords = (bounceDomain?: string) => dnsRecordsFor(row, { bounceDomain, heloName: "mta.test" }).filter((r) => r.purpose === "dmarc");

describe("the suggested DMARC records (docs/adr/0809)", () => {
  it("sends aggregate reports to dmarc@ of the domain's own bounce domain, nothing more to publish", () => {
    expect(dmarcRecords()).toEqual([{ purpose: "dmarc", type: "TXT", name: "_dmarc.mail.shop.test", value: "v=DMARC1; p=none; rua=mailto:dmarc@bounces.mail.shop.test" }]);
    expect(dmarcRecords("bounces.mail.shop.test")).toHaveLength(1);
  });

  it("adds the RFC 7489 §7.1 record when the bounce domain is outside the domain", () => {
    expect(dmarcRecords("bounce.mailroom.example")).toEqual([
      { purpose: "dmarc", type: "TXT", name: "_dmarc.mail.shop.test", value: "v=DMARC1; p=none; rua=mailto:dmarc@bounce.mailroom.example" },
      { purpose: "dmarc", type: "TXT", name: "mail.shop.test._report._dmarc.bounce.mailroom.example", value: "v=DMARC1" },
    ]);
  });
});
