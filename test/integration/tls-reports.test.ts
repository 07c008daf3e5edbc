import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTlsSessionCounter } from "../../lib/delivery/tls-reports/session-counter";
import type { TlsSessionResult } from "../../lib/delivery/tls-policy/tls-result";
import { sendTlsReports } from "../../lib/maintenance/tls-reports";
import { selectTlsReportsSent } from "../../lib/storage/tls-report-rows";
import { waitFor } from "../support/delivery-helpers";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";
import { startTestApp, type TestApp } from "../support/test-app";
import { runCli, runCliJson } from "./cli-support";

/**
 * TLS-RPT end to end (docs/adr/0328): the real app in MX mode on a fake internet
 * (test/support/fake-dns.ts), sessions fed to the counter as delivery hands them,
 * then the day's job: a `testing` MTA-STS domain whose MX has a certificate for
 * another name gets one report, by email through Mailroom's own delivery (a
 * loopback MX) or POSTed to a loopback receiver, and only once.
 */

const SUBMITTER = "mail.sender.test";
const sts = ["version: STSv1", "mode: testing", "mx: mx.example.test", "max_age: 86400"];
const DAY_MS = 86_400_000;
const yesterday = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS);
const day = yesterday.toISOString().slice(0, 10);

const session = (domain: string, over: Partial<TlsSessionResult> = {}): TlsSessionResult => ({
  policyDomain: domain,
  policyType: "sts",
  policyString: sts.map((l) => l.replace("example.test", domain)),
  mxHost: `mx.${domain}`,
  receivingIp: "127.0.0.42",
  sendingIp: "127.0.0.1",
  at: yesterday.getTime() + 3_600_000,
  ...over,
});
const mismatch = { resultType: "certificate-host-mismatch" as const, additionalInformation: "the certificate names mx.other.test" };

interface Received {
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

describe("TLS-RPT daily reports", () => {
  let dns: FakeDns;
  let sink: SmtpSink;
  let app: TestApp;
  let receiver: http.Server;
  let receiverStatus = 500;
  const posts: Received[] = [];

  beforeAll(async () => {
    dns = await startFakeDns();
    sink = await startSmtpSink({ host: "127.0.0.41" });
    dns.mx("reports.test", [{ name: "mx.reports.test", address: "127.0.0.41" }]);
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        posts.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(receiverStatus).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const port = (receiver.address() as AddressInfo).port;
    dns.set("_smtp._tls.example.test", { TXT: ["v=TLSRPTv1; rua=mailto:tlsrpt@reports.test"] });
    dns.set("_smtp._tls.posted.test", { TXT: ["v=spf1 -all", ["v=TLSRPTv1;rua=", `http://127.0.0.1:${port}/tlsrpt`]] });
    app = await startTestApp({
      MAILROOM_DELIVERY: "mx",
      MAILROOM_ALLOW_PRIVATE_MX: "true",
      MAILROOM_DNS_SERVERS: dns.address,
      MAILROOM_MX_PORT: String(sink.port),
      MAILROOM_HELO_NAME: SUBMITTER,
      MAILROOM_TLSRPT_ORGANIZATION: "Mailroom test",
    });

    // What delivery hands the counter (lib/delivery/transports.ts's tlsSessions), then the worker's stop flushes it.
    const counter = createTlsSessionCounter(app.ctx.database, { flushMs: 60_000 });
    for (let i = 0; i < 7; i++) counter.add(session("example.test"));
    for (let i = 0; i < 3; i++) counter.add(session("example.test", { failure: mismatch }));
    counter.add(session("example.test", { failure: mismatch, receivingIp: "127.0.0.43" }));
    counter.add(session("posted.test", { failure: mismatch }));
    counter.add(session("posted.test"));
    counter.add(session("unreported.test"));
    counter.add(session("later.test", { failure: { resultType: "starttls-not-supported" } }));
    await counter.stop();
  });
  afterAll(async () => {
    await app?.stop();
    await sink?.stop();
    await dns?.stop();
    await new Promise((r) => receiver?.close(r));
  });

  it("mails the day's report once through Mailroom's own delivery, and POSTs it to an http(s) rua until a 2xx", async () => {
    const first = await sendTlsReports(app.ctx, { day });
    expect(first).toMatchObject({ days: 1, domains: 4, sent: 1, failed: 1, noRecord: 2, lookupFailed: 0 });

    // The email: queued by the system sender, delivered by MX to reports.test's (loopback) MX.
    const mail = await waitFor("the report at reports.test's MX", async () => sink.received[0], 30_000);
    expect(mail.rcptTo).toEqual(["tlsrpt@reports.test"]);
    const parsed = await simpleParser(mail.raw);
    const reportId = `${day}.example.test@${SUBMITTER}`;
    expect(parsed.subject).toBe(`Report Domain: example.test Submitter: ${SUBMITTER} Report-ID: <${reportId}>`);
    expect(parsed.headers.get("tls-report-domain")).toBe("example.test");
    expect(parsed.headers.get("tls-report-submitter")).toBe(SUBMITTER);
    expect(parsed.headers.get("dkim-signature")).toBeDefined();
    expect(parsed.text).toContain("RFC 8460");
    expect(parsed.attachments).toHaveLength(1);
    const attachment = parsed.attachments[0]!;
    expect(attachment.contentType).toBe("application/tlsrpt+gzip");
    const begin = yesterday.getTime() / 1000;
    expect(attachment.filename).toBe(`${SUBMITTER}!example.test!${begin}!${begin + 86_399}.json.gz`);
    const report = JSON.parse(gunzipSync(attachment.content).toString("utf8"));
    expect(report).toEqual({
      "organization-name": "Mailroom test",
      "date-range": { "start-datetime": `${day}T00:00:00Z`, "end-datetime": `${day}T23:59:59Z` },
      "contact-info": `postmaster@${SUBMITTER}`,
      "report-id": reportId,
      policies: [
        {
          policy: { "policy-type": "sts", "policy-string": sts, "policy-domain": "example.test", "mx-host": "mx.example.test" },
          summary: { "total-successful-session-count": 7, "total-failure-session-count": 4 },
          "failure-details": [
            {
              "result-type": "certificate-host-mismatch",
              "sending-mta-ip": "127.0.0.1",
              "receiving-mx-hostname": "mx.example.test",
              "receiving-ip": "127.0.0.42",
              "failed-session-count": 3,
              "additional-information": mismatch.additionalInformation,
            },
            {
              "result-type": "certificate-host-mismatch",
              "sending-mta-ip": "127.0.0.1",
              "receiving-mx-hostname": "mx.example.test",
              "receiving-ip": "127.0.0.43",
              "failed-session-count": 1,
              "additional-information": mismatch.additionalInformation,
            },
          ],
        },
      ],
    });

    // The POST: the first answer was a 500 (failed, tried again at the next run), the next a 200.
    expect(posts).toHaveLength(1);
    expect(posts[0]!.headers["content-type"]).toBe("application/tlsrpt+gzip");
    const posted = JSON.parse(gunzipSync(posts[0]!.body).toString("utf8"));
    expect(posted.policies[0].summary).toEqual({ "total-successful-session-count": 1, "total-failure-session-count": 1 });
    expect(posted["report-id"]).toBe(`${day}.posted.test@${SUBMITTER}`);
    receiverStatus = 200;
    const second = await sendTlsReports(app.ctx, { day });
    expect(second).toMatchObject({ domains: 3, sent: 1, failed: 0, noRecord: 2 });
    expect(posts).toHaveLength(2);
    expect(gunzipSync(posts[1]!.body).equals(gunzipSync(posts[0]!.body))).toBe(true);

    // A third run, and the scheduled run of the days ended, send nothing more.
    expect(await sendTlsReports(app.ctx, { day })).toMatchObject({ domains: 2, sent: 0, failed: 0, noRecord: 2 });
    expect(await sendTlsReports(app.ctx)).toMatchObject({ days: 2, sent: 0, failed: 0 });
    await new Promise((r) => setTimeout(r, 1500));
    expect(sink.received).toHaveLength(1);
    expect(posts).toHaveLength(2);
    expect(await selectTlsReportsSent(app.ctx.database, day)).toEqual([
      { policyDomain: "example.test", rua: "mailto:tlsrpt@reports.test", reportId, status: "sent", detail: expect.stringMatching(/^queued as message /), attempts: 1 },
      { policyDomain: "posted.test", rua: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/tlsrpt$/), reportId: `${day}.posted.test@${SUBMITTER}`, status: "sent", detail: "HTTP 200", attempts: 2 },
    ]);
  }, 60_000);

  it("`mailroom tls-reports send --day` has the running workers send that day's reports; `list` shows them", async () => {
    dns.set("_smtp._tls.later.test", { TXT: ["v=TLSRPTv1; rua=mailto:later@reports.test"] });
    const env = { DATABASE_URL: app.ctx.database.url, MAILROOM_HELO_NAME: SUBMITTER };
    expect(await runCli(["tls-reports", "send", "--day", "2026-02-30"], env)).toMatchObject({ code: 1, stderr: expect.stringContaining("--day") });
    expect(await runCliJson(["tls-reports", "send", "--day", day, "--json"], env)).toEqual({ queued: true, day });
    const mail = await waitFor("later.test's report", async () => sink.received.find((m) => m.rcptTo.includes("later@reports.test")), 60_000);
    const parsed = await simpleParser(mail.raw);
    const report = JSON.parse(gunzipSync(parsed.attachments[0]!.content).toString("utf8"));
    expect(report.policies[0]["failure-details"]).toEqual([
      { "result-type": "starttls-not-supported", "sending-mta-ip": "127.0.0.1", "receiving-mx-hostname": "mx.later.test", "receiving-ip": "127.0.0.42", "failed-session-count": 1 },
    ]);
    const listed = await runCliJson<{ policyDomain: string; status: string }[]>(["tls-reports", "list", "--day", day, "--json"], env);
    expect(listed.map((r) => `${r.policyDomain} ${r.status}`)).toEqual(["example.test sent", "later.test sent", "posted.test sent"]);
    expect(sink.received).toHaveLength(2);
  }, 90_000);
});
