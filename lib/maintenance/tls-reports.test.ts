import { describe, expect, it } from "vitest";
import { reportEmail } from "../delivery/tls-reports/report-email";
import { parseReportDay, reportDays } from "./tls-reports";

describe("the TLS-RPT job's days", () => {
  it("reports the two UTC days ended, or the day given", () => {
    expect(reportDays(new Date("2026-12-02T00:23:00Z"))).toEqual(["2026-12-01", "2026-11-30"]);
    expect(reportDays(new Date("2026-12-02T23:59:59Z"))).toEqual(["2026-12-01", "2026-11-30"]);
    expect(reportDays(new Date("2026-03-01T06:23:00Z"))).toEqual(["2026-02-28", "2026-02-27"]);
    expect(reportDays(new Date(), "2026-11-01")).toEqual(["2026-11-01"]);
  });

  it("takes a day only as YYYY-MM-DD of a real date", () => {
    expect(parseReportDay("2026-12-01")).toBe("2026-12-01");
    for (const bad of ["2026-02-30", "2026-12-1", "yesterday", 20261201, undefined, "2026-12-01T00:00:00Z"]) expect(parseReportDay(bad)).toBeUndefined();
  });
});

describe("the report's email (RFC 8460 §5.3)", () => {
  it("has the RFC's subject and headers, untracked, and the gzip attached by its type and file name", () => {
    const gz = Buffer.from([0x1f, 0x8b, 0x08, 0x00]);
    const email = reportEmail({ from: "no-reply@example.com", to: "tlsrpt@reports.test", domain: "example.test", submitter: "mail.sender.test", reportId: "r@x", gz, fileName: "f.json.gz" });
    expect(email.Subject).toBe("Report Domain: example.test Submitter: mail.sender.test Report-ID: <r@x>");
    expect(email.Headers).toEqual({ "TLS-Report-Domain": "example.test", "TLS-Report-Submitter": "mail.sender.test", "X-Mailroom-Track": "none" });
    expect(email.Attachments).toEqual([{ Content: gz.toString("base64"), Type: "application/tlsrpt+gzip", Filename: "f.json.gz" }]);
    expect(email.To).toEqual([{ name: "", email: "tlsrpt@reports.test" }]);
  });
});
