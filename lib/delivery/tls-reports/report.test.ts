import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { TlsCountRow } from "../../storage/tls-report-rows";
import { buildTlsReport, dayRange, gzipReport, reportFileName, reportIdOf } from "./report";

const sts = ["version: STSv1", "mode: testing", "mx: mx.example.test", "max_age: 86400"];
const row = (over: Partial<TlsCountRow>): TlsCountRow => ({
  policyDomain: "example.test",
  policyType: "sts",
  policyString: sts,
  mxHost: "mx.example.test",
  resultType: "",
  receivingIp: "",
  sendingIp: "",
  additionalInformation: "",
  count: 1,
  ...over,
});

describe("the TLS-RPT report (RFC 8460 §4.4)", () => {
  it("is the RFC's JSON: one policy per policy and MX host, its summary and failure details", () => {
    const report = buildTlsReport({
      organization: "Mailroom at mail.sender.test",
      contact: "postmaster@mail.sender.test",
      reportId: reportIdOf("2026-12-01", "example.test", "mail.sender.test"),
      policyDomain: "example.test",
      day: "2026-12-01",
      rows: [
        row({ count: 40 }),
        row({ resultType: "certificate-host-mismatch", receivingIp: "192.0.2.1", sendingIp: "198.51.100.7", additionalInformation: "CN=other.test", count: 3 }),
        row({ resultType: "certificate-expired", receivingIp: "192.0.2.2", sendingIp: "198.51.100.7", count: 2 }),
        row({ policyType: "tlsa", policyString: ["3 1 1 abcd"], mxHost: "mx2.example.test", count: 5 }),
      ],
    });
    expect(report).toEqual({
      "organization-name": "Mailroom at mail.sender.test",
      "date-range": { "start-datetime": "2026-12-01T00:00:00Z", "end-datetime": "2026-12-01T23:59:59Z" },
      "contact-info": "postmaster@mail.sender.test",
      "report-id": "2026-12-01.example.test@mail.sender.test",
      policies: [
        {
          policy: { "policy-type": "sts", "policy-string": sts, "policy-domain": "example.test", "mx-host": "mx.example.test" },
          summary: { "total-successful-session-count": 40, "total-failure-session-count": 5 },
          "failure-details": [
            {
              "result-type": "certificate-host-mismatch",
              "sending-mta-ip": "198.51.100.7",
              "receiving-mx-hostname": "mx.example.test",
              "receiving-ip": "192.0.2.1",
              "failed-session-count": 3,
              "additional-information": "CN=other.test",
            },
            { "result-type": "certificate-expired", "sending-mta-ip": "198.51.100.7", "receiving-mx-hostname": "mx.example.test", "receiving-ip": "192.0.2.2", "failed-session-count": 2 },
          ],
        },
        {
          policy: { "policy-type": "tlsa", "policy-string": ["3 1 1 abcd"], "policy-domain": "example.test", "mx-host": "mx2.example.test" },
          summary: { "total-successful-session-count": 5, "total-failure-session-count": 0 },
        },
      ],
    });
  });

  it("names its file <sender>!<policy-domain>!<begin>!<end>.json.gz in epoch seconds (§5.3)", () => {
    expect(reportFileName("mail.sender.test", "example.test", "2026-12-01")).toBe("mail.sender.test!example.test!1796083200!1796169599.json.gz");
    expect(dayRange("2026-12-01").start.toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(() => dayRange("2026-02-30")).toThrow();
  });

  it("gzips to its JSON", async () => {
    const report = buildTlsReport({ organization: "o", contact: "c", reportId: "r", policyDomain: "d.test", day: "2026-12-01", rows: [row({})] });
    expect(JSON.parse(gunzipSync(await gzipReport(report)).toString("utf8"))).toEqual(report);
  });
});
