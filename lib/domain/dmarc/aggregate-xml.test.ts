import { describe, expect, it } from "vitest";
import { aggregateReportXml } from "../../../test/support/dmarc-reports";
import { AggregateReportError, parseAggregateReport, reporterOf } from "./aggregate-xml";

const xml = (s: string) => Buffer.from(s, "utf8");

describe("parseAggregateReport", () => {
  it("reads a Google-style report: metadata, policy and every record", async () => {
    const report = await parseAggregateReport(
      xml(
        aggregateReportXml({
          domain: "Example.com",
          reportId: "13579246801357924680",
          begin: 1764633600,
          records: [
            { ip: "192.0.2.1", count: 12 },
            { ip: "2001:db8::5", count: 3, dkim: "fail", spf: "fail", disposition: "quarantine" },
          ],
        }),
      ),
    );
    expect(report).toMatchObject({ orgName: "google.com", reportId: "13579246801357924680", begin: 1764633600, end: 1764633600 + 86399, domain: "example.com", policy: "none" });
    expect(report.records).toEqual([
      { sourceIp: "192.0.2.1", count: 12, disposition: "none", dkimAligned: true, spfAligned: true, dkimResult: "pass", spfResult: "pass", headerFrom: "example.com" },
      { sourceIp: "2001:db8::5", count: 3, disposition: "quarantine", dkimAligned: false, spfAligned: false, dkimResult: "fail", spfResult: "fail", headerFrom: "example.com" },
    ]);
    expect(reporterOf(report)).toBe("google.com");
  });

  it("names Yahoo by its email's domain, not its org_name", () => {
    expect(reporterOf({ orgName: "Yahoo", email: "dmarchelp@yahoo.com" })).toBe("yahoo.com");
    expect(reporterOf({ orgName: "Example Org", email: "" })).toBe("example org");
  });

  it("refuses a billion-laughs DTD without expanding an entity", async () => {
    const laughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<feedback><report_metadata><org_name>&lol3;</org_name></report_metadata></feedback>`;
    await expect(parseAggregateReport(xml(laughs))).rejects.toThrow(/DTD or declaration/);
  });

  it("leaves an undeclared entity as text (no DTD, nothing to expand)", async () => {
    const report = await parseAggregateReport(xml(aggregateReportXml({ domain: "example.com", reportId: "&lol9;", records: [] })));
    expect(report.reportId).toBe("&lol9;");
  });

  it("refuses nesting past the depth bound (100,000 levels)", async () => {
    const deep = "<feedback>" + "<x>".repeat(100_000) + "</x>".repeat(100_000) + "</feedback>";
    await expect(parseAggregateReport(xml(deep))).rejects.toThrow(/nested more than 16 deep/);
  });

  it("refuses more elements or records than the bounds", async () => {
    const many = "<feedback>" + "<e/>".repeat(50) + "</feedback>";
    await expect(parseAggregateReport(xml(many), { maxDepth: 16, maxElements: 40, maxRecords: 10 })).rejects.toThrow(/more than 40 XML elements/);
    const records = aggregateReportXml({ domain: "example.com", reportId: "r", records: Array.from({ length: 3 }, (_, i) => ({ ip: `192.0.2.${i}`, count: 1 })) });
    await expect(parseAggregateReport(xml(records), { maxDepth: 16, maxElements: 1000, maxRecords: 2 })).rejects.toThrow(/more than 2 records/);
  });

  it("refuses what is not a report: no domain, no id, a record without its count", async () => {
    await expect(parseAggregateReport(xml("<feedback></feedback>"))).rejects.toBeInstanceOf(AggregateReportError);
    await expect(parseAggregateReport(xml("not xml at all"))).rejects.toThrow(/no policy_published domain/);
    const noCount = aggregateReportXml({ domain: "example.com", reportId: "r", records: [{ ip: "192.0.2.1", count: 1 }] }).replace("<count>1</count>", "<count>lots</count>");
    await expect(parseAggregateReport(xml(noCount))).rejects.toThrow(/without source_ip or count/);
  });
});
