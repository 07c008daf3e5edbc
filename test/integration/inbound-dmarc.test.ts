import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DmarcResponse } from "../../lib/contract/dmarc";
import { createApiKey } from "../../lib/domain/accounts/api-keys";
import { getInboundAddress, sendToInbound } from "../../lib/inbound/inbound-server";
import { purgePastRetention } from "../../lib/maintenance/retention-purge";
import { aggregateReportXml, gzipOf, reportMail, zipOne } from "../support/dmarc-reports";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

const HELO = "mta.mailroom.test";
const INSTANCE_IP = "192.0.2.10";
const STRANGER_IP = "198.51.100.7";

/**
 * DMARC aggregate reports (docs/adr/0809) sent by real SMTP to the inbound
 * server at dmarc@bounces.<domain>, read back through
 * GET /api/v1/domains/{domain}/dmarc (docs/contract.md §17.5).
 */
describe("DMARC aggregate reports", { timeout: 120_000 }, () => {
  let app: TestApp;
  let dns: FakeDns;
  let inbound: { host: string; port: number };
  let apiKey: string;
  let accountId: string;
  let otherKey: string;
  beforeAll(async () => {
    dns = await startFakeDns();
    dns.set(HELO, { A: [INSTANCE_IP] });
    app = await startTestApp({ MAILROOM_DNS_SERVERS: dns.address, MAILROOM_HELO_NAME: HELO });
    ({ apiKey, accountId } = await createTestAccount(app.ctx, { name: "Shop", domain: "shop.test" }));
    ({ apiKey: otherKey } = await createTestAccount(app.ctx, { name: "Other", domain: "other.test" }));
    inbound = getInboundAddress(app.ctx)!;
  });
  afterAll(async () => {
    await app?.stop();
    await dns?.stop();
  });

  const dmarcOf = async (domain: string, query = "", key = apiKey) => {
    const res = await app.fetch(`/api/v1/domains/${domain}/dmarc${query}`, { headers: bearer(key) });
    return { status: res.status, body: (await res.json()) as DmarcResponse & { Errors?: { Code: number; Message: string; Field?: string }[] } };
  };
  const send = (raw: Buffer, to = "dmarc@bounces.shop.test") => sendToInbound(inbound, raw, { from: "noreply-dmarc-support@google.com", to });

  it("stores a Google zip report and a Yahoo gzip report, summed by source, the instance's address known and a stranger's flagged", async () => {
    const google = aggregateReportXml({
      domain: "shop.test",
      reportId: "google-1",
      records: [
        { ip: INSTANCE_IP, count: 40 },
        { ip: STRANGER_IP, count: 5, dkim: "fail", spf: "fail", disposition: "reject" },
      ],
    });
    const yahoo = aggregateReportXml({
      domain: "shop.test",
      reportId: "yahoo-1",
      org: "Yahoo",
      email: "dmarchelp@yahoo.com",
      records: [{ ip: INSTANCE_IP, count: 10, spf: "fail" }],
    });
    const zip = reportMail({ to: "dmarc@bounces.shop.test", attachment: zipOne("google.com!shop.test!1!2.xml", Buffer.from(google)), contentType: "application/zip", filename: "google.com!shop.test!1!2.zip" });
    const gz = reportMail({ to: "dmarc@bounces.shop.test", from: "dmarchelp@yahoo.com", attachment: gzipOf(yahoo), contentType: "application/gzip", filename: "yahoo.com!shop.test!1!2.xml.gz" });
    expect(await send(zip)).toMatch(/^250/);
    expect(await send(gz)).toMatch(/^250/);
    expect(await send(zip)).toMatch(/^250/); // sent again: stored once

    const { status, body } = await dmarcOf("Shop.Test", "?Days=7");
    expect(status).toBe(200);
    expect(body).toEqual({
      Domain: "shop.test",
      Days: 7,
      Reports: 2,
      Sources: [
        { SourceIp: INSTANCE_IP, Count: 50, SpfAligned: 40, DkimAligned: 50, DmarcPass: 50, Disposition: { none: 50, quarantine: 0, reject: 0 }, KnownSource: true, Reporters: ["google.com", "yahoo.com"] },
        { SourceIp: STRANGER_IP, Count: 5, SpfAligned: 0, DkimAligned: 0, DmarcPass: 0, Disposition: { none: 0, quarantine: 0, reject: 5 }, KnownSource: false, Reporters: ["google.com"] },
      ],
    });
    expect((await dmarcOf("shop.test")).body.Days).toBe(30);
  });

  it("refuses a gzip bomb and a billion-laughs report with 554, storing nothing", async () => {
    const bomb = gzipOf(Buffer.alloc(64 * 1024 * 1024, 0x20));
    await expect(send(reportMail({ to: "dmarc@bounces.shop.test", attachment: bomb, contentType: "application/gzip", filename: "bomb.xml.gz" }))).rejects.toThrow(/554 5\.6\.0 .*expands past 10485760 bytes/);
    const laughs = '<?xml version="1.0"?><!DOCTYPE feedback [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><feedback><report_metadata><report_id>&b;</report_id></report_metadata></feedback>';
    await expect(send(reportMail({ to: "dmarc@bounces.shop.test", attachment: Buffer.from(laughs), contentType: "text/xml", filename: "x.xml" }))).rejects.toThrow(/554 5\.6\.0 .*DTD/);
    expect((await dmarcOf("shop.test")).body.Reports).toBe(2);
  });

  it("drops a report for a domain no account verified (accepted, not stored)", async () => {
    const xml = aggregateReportXml({ domain: "nobody.test", reportId: "n-1", records: [{ ip: STRANGER_IP, count: 1 }] });
    expect(await send(reportMail({ to: "dmarc@bounces.shop.test", attachment: gzipOf(xml), contentType: "application/gzip", filename: "n.xml.gz" }))).toMatch(/^250/);
    const { rows } = await app.ctx.database.pool.query("SELECT count(*)::int AS n FROM dmarc_reports WHERE domain = 'nobody.test'");
    expect(rows[0].n).toBe(0);
  });

  it("shows another account nothing of the domain: 404 for it, and a read key is refused", async () => {
    const other = await dmarcOf("shop.test", "", otherKey);
    expect(other).toEqual({ status: 404, body: { Errors: [expect.objectContaining({ Code: 404 })] } });
    const readKey = (await createApiKey(app.ctx.database, accountId, "reader", { scope: "read" })).apiKey;
    const read = await dmarcOf("shop.test", "", readKey);
    expect(read.status).toBe(403);
    expect(read.body.Errors![0]!.Message).toMatch(/needs a full key/);
    const bad = await dmarcOf("shop.test", "?Days=0");
    expect(bad.status).toBe(422);
    expect(bad.body.Errors![0]).toMatchObject({ Code: 422, Field: "Days" });
  });

  it("purges the reports of days past the account's retention", async () => {
    await app.ctx.database.pool.query("UPDATE dmarc_reports SET day = day - 400 WHERE report_id = 'google-1'");
    await purgePastRetention(app.ctx, new Date());
    const { body } = await dmarcOf("shop.test", "?Days=400");
    expect(body.Reports).toBe(1);
    expect(body.Sources.map((s) => s.SourceIp)).toEqual([INSTANCE_IP]);
  });
});
