import { createHash, X509Certificate } from "node:crypto";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendTlsReports } from "../../lib/maintenance/tls-reports";
import { bearer, createTestAccount } from "../support/fixtures";
import { eventsOf, expectNoRecipientLeftQueued, sendViaApi, waitFor } from "../support/delivery-helpers";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";
import { createTestCa, type TestCa } from "../support/test-ca";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * MTA-STS (RFC 8461) and DANE (RFC 7672) in direct-MX delivery, on the fake
 * internet: a test CA trusted through MAILROOM_TLS_EXTRA_CA_FILE, an HTTPS
 * server for the mta-sts.<domain> policies, the fake DNS (TLSA answered with
 * the AD bit), and real SMTP peers on 127.0.0.71–75 presenting a good, an
 * expired, a wrong-name and a self-signed certificate, or no STARTTLS.
 */
const text = (to: string) => ({ From: { email: "shop@example.com" }, To: [{ email: to }], Subject: "tls", ContentType: "Text", PlainContent: "hello" });
const policy = (mode: string, mx: string[]) => ["version: STSv1", `mode: ${mode}`, ...mx.map((m) => `mx: ${m}`), "max_age: 86400", ""].join("\r\n");

describe("outbound TLS policies", () => {
  let dns: FakeDns;
  let ca: TestCa;
  let app: TestApp;
  let apiKey: string;
  let policyServer: https.Server;
  let appEnv: Record<string, string>;
  const policies = new Map<string, string>();
  const peers: Record<string, SmtpSink> = {};
  const receivedBy = (peer: string, rcpt: string) => peers[peer]!.received.filter((m) => m.rcptTo.includes(rcpt));

  beforeAll(async () => {
    dns = await startFakeDns();
    ca = await createTestCa();
    const good = await ca.issue(["mx.good.test"]);
    const expired = await ca.issue(["mx.expired.test"], { expired: true });
    const wrongName = await ca.issue(["mx.somewhere-else.test"]);
    const selfSigned = await ca.issue(["mx.dane.test"], { selfSigned: true });
    // One MX port for every peer (MAILROOM_MX_PORT): the first picks it, the others listen on it too.
    peers.good = await startSmtpSink({ host: "127.0.0.71", starttls: true, tls: good });
    const port = peers.good.port;
    peers.expired = await startSmtpSink({ host: "127.0.0.72", port, starttls: true, tls: expired });
    peers.wrong = await startSmtpSink({ host: "127.0.0.73", port, starttls: true, tls: wrongName });
    peers.clear = await startSmtpSink({ host: "127.0.0.74", port });
    peers.dane = await startSmtpSink({ host: "127.0.0.75", port, starttls: true, tls: selfSigned });
    // Where testing-wrong.test wants its TLS-RPT reports (its _smtp._tls record's mailto:).
    peers.reports = await startSmtpSink({ host: "127.0.0.76", port });
    dns.mx("reports.test", [{ name: "mx.reports.test", address: "127.0.0.76" }]);
    dns.set("_smtp._tls.testing-wrong.test", { TXT: ["v=TLSRPTv1; rua=mailto:tlsrpt@reports.test"] });
    for (const [name, address] of [
      ["mx.good.test", "127.0.0.71"],
      ["mx.expired.test", "127.0.0.72"],
      ["mx.wrong.test", "127.0.0.73"],
      ["mx.clear.test", "127.0.0.74"],
      ["mx.dane.test", "127.0.0.75"],
      ["mx.danebad.test", "127.0.0.75"],
    ]) dns.set(name!, { A: [address!] });

    const stsDomains = {
      "enforce-good.test": ["mx.good.test", policy("enforce", ["mx.good.test"])],
      "enforce-clear.test": ["mx.clear.test", policy("enforce", ["mx.clear.test"])],
      "enforce-expired.test": ["mx.expired.test", policy("enforce", ["mx.expired.test"])],
      "enforce-wrong.test": ["mx.wrong.test", policy("enforce", ["mx.wrong.test"])],
      "enforce-unlisted.test": ["mx.good.test", policy("enforce", ["mx.elsewhere.test"])],
      "testing-wrong.test": ["mx.wrong.test", policy("testing", ["mx.wrong.test"])],
      "testing-clear.test": ["mx.clear.test", policy("testing", ["*.clear.test"])],
      // DANE wins over MTA-STS: this policy would refuse the self-signed certificate.
      "dane-good.test": ["mx.dane.test", policy("enforce", ["mx.dane.test"])],
    } as const;
    for (const [domain, [mx, body]] of Object.entries(stsDomains)) {
      dns.set(domain, { MX: [{ exchange: mx, priority: 10 }] });
      dns.set(`_mta-sts.${domain}`, { TXT: ["v=STSv1; id=20261202T000000"] });
      dns.set(`mta-sts.${domain}`, { A: ["127.0.0.70"] });
      policies.set(`mta-sts.${domain}`, body);
    }
    dns.set("dane-bad.test", { MX: [{ exchange: "mx.danebad.test", priority: 10 }] });
    dns.set("plain.test", { MX: [{ exchange: "mx.clear.test", priority: 10 }] });
    const spki = new X509Certificate(selfSigned.leafDer).publicKey.export({ type: "spki", format: "der" }) as Buffer;
    dns.set("_25._tcp.mx.dane.test", { TLSA: [{ usage: 3, selector: 1, matchingType: 1, certificate: createHash("sha256").update(spki).digest() }], authenticated: true });
    dns.set("_25._tcp.mx.danebad.test", { TLSA: [{ usage: 3, selector: 1, matchingType: 1, certificate: Buffer.alloc(32, 9) }], authenticated: true });

    const policyCert = await ca.issue([...policies.keys()]);
    policyServer = https.createServer({ key: policyCert.key, cert: policyCert.cert }, (req, res) => {
      const body = policies.get((req.headers.host ?? "").split(":")[0]!);
      if (req.url !== "/.well-known/mta-sts.txt" || !body) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "text/plain" }).end(body);
    });
    await new Promise<void>((resolve) => policyServer.listen(0, "127.0.0.70", resolve));

    appEnv = {
      MAILROOM_DELIVERY: "mx",
      MAILROOM_ALLOW_PRIVATE_MX: "true",
      MAILROOM_DNS_SERVERS: dns.address,
      MAILROOM_MX_PORT: String(port),
      MAILROOM_MTA_STS_PORT: String((policyServer.address() as AddressInfo).port),
      MAILROOM_TLS_EXTRA_CA_FILE: ca.caFile,
      MAILROOM_DANE: "true",
      MAILROOM_DELIVERY_MAX_AGE: "6s",
      MAILROOM_DELIVERY_RETRY_SCHEDULE: "2s",
    };
    app = await startTestApp(appEnv);
    ({ apiKey } = await createTestAccount(app.ctx));
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx, 60_000);
    await app?.stop();
    for (const p of Object.values(peers)) await p.stop();
    await new Promise((r) => policyServer?.close(r));
    await dns?.stop();
  });

  const firstAttempt = (id: string) =>
    waitFor("an attempt", async () => {
      const r = await app.ctx.database.pool.query<{ outcome: string; enhanced_code: string; reply: string; tls: Record<string, unknown> | null }>(
        "SELECT outcome, enhanced_code, reply, tls FROM delivery_attempts WHERE message_id = $1 ORDER BY id LIMIT 1",
        [id],
      );
      return r.rows[0];
    });
  const finalEvent = (id: string) => waitFor("the final event", async () => (await eventsOf(app.ctx, id)).find((e) => ["delivered", "failed", "rejected"].includes(e.type)), 30_000);

  it("enforce, valid certificate for the MX name: delivered over TLS, verdict mta-sts verified, in the event's Tls member", async () => {
    const id = await sendViaApi(app, apiKey, text("a@enforce-good.test"));
    expect((await finalEvent(id)).type).toBe("delivered");
    expect(receivedBy("good", "a@enforce-good.test")).toHaveLength(1);
    expect(receivedBy("good", "a@enforce-good.test")[0]!.secure).toBe(true);
    expect((await firstAttempt(id)).tls).toMatchObject({ policy: "mta-sts", mode: "enforce", verified: true, version: expect.stringMatching(/^TLSv1\.[23]$/), cipher: expect.any(String) });
    const res = await app.fetch(`/api/v1/events?MessageID=${id}&Event=delivered`, { headers: bearer(apiKey) });
    const body = (await res.json()) as { Events: { Tls?: unknown }[] };
    expect(body.Events[0]!.Tls).toMatchObject({ Policy: "mta-sts", Mode: "enforce", Verified: true, Version: expect.stringMatching(/^TLSv1/) });
  });

  it.each([
    ["enforce-clear.test", "clear", "4.7.10", /mx\.clear\.test offered no STARTTLS/],
    ["enforce-expired.test", "expired", "4.7.5", /certificate of mx\.expired\.test has expired/],
    ["enforce-wrong.test", "wrong", "4.7.5", /certificate does not name mx\.wrong\.test/],
    ["enforce-unlisted.test", "good", "4.7.5", /is listed by its MTA-STS policy/],
  ])("enforce, %s: never delivered in clear or to an unproven host; deferred saying why, then failed", async (domain, peer, enhanced, reason) => {
    const to = `b@${domain}`;
    const id = await sendViaApi(app, apiKey, text(to));
    const attempt = await firstAttempt(id);
    expect(attempt).toMatchObject({ outcome: "deferred", enhanced_code: enhanced, reply: expect.stringMatching(reason) });
    expect(attempt.tls).toMatchObject({ policy: "mta-sts", mode: "enforce", verified: false });
    const final = await finalEvent(id);
    expect(final.type).toBe("failed");
    expect(final.reason).toMatch(reason);
    expect(receivedBy(peer, to)).toEqual([]);
  });

  it("testing, wrong-name certificate or no STARTTLS: delivered, and the failure recorded in the verdict", async () => {
    for (const [domain, peer, failure] of [
      ["testing-wrong.test", "wrong", /does not name mx\.wrong\.test/],
      ["testing-clear.test", "clear", /offered no STARTTLS/],
    ] as const) {
      const to = `c@${domain}`;
      const id = await sendViaApi(app, apiKey, text(to));
      expect((await finalEvent(id)).type).toBe("delivered");
      expect(receivedBy(peer, to)).toHaveLength(1);
      expect((await firstAttempt(id)).tls).toMatchObject({ policy: "mta-sts", mode: "testing", verified: false, failure: expect.stringMatching(failure) });
    }
  });

  it("testing, wrong-name certificate: the day's TLS-RPT report of the domain counts the failed session, mailed through our own delivery", async () => {
    const day = new Date().toISOString().slice(0, 10);
    // The worker's session counter flushes every 5 s.
    await waitFor("the counted sessions", async () => {
      const r = await app.ctx.database.pool.query("SELECT 1 FROM tls_session_counts WHERE policy_domain = 'testing-wrong.test'");
      return r.rowCount ? true : undefined;
    }, 20_000);
    expect(await sendTlsReports(app.ctx, { day })).toMatchObject({ sent: 1 });
    const mail = await waitFor("the report", async () => peers.reports!.received.find((m) => m.rcptTo.includes("tlsrpt@reports.test")), 20_000);
    const parsed = await simpleParser(mail.raw);
    expect(parsed.headers.get("tls-report-domain")).toBe("testing-wrong.test");
    const report = JSON.parse(gunzipSync(parsed.attachments[0]!.content).toString()) as {
      policies: { policy: { "policy-type": string; "policy-domain": string; "policy-string": string[] }; summary: Record<string, number>; "failure-details"?: { "result-type": string; "receiving-mx-hostname": string }[] }[];
    };
    const sts = report.policies.find((p) => p.policy["policy-type"] === "sts")!;
    expect(sts.policy["policy-domain"]).toBe("testing-wrong.test");
    expect(sts.policy["policy-string"]).toContain("mode: testing");
    expect(sts.summary["total-failure-session-count"]).toBeGreaterThanOrEqual(1);
    expect(sts["failure-details"]).toContainEqual(expect.objectContaining({ "result-type": "certificate-host-mismatch", "receiving-mx-hostname": "mx.wrong.test" }));
  });

  it("DANE: a TLSA record matching the self-signed certificate delivers with verdict dane, over the domain's MTA-STS policy", async () => {
    const id = await sendViaApi(app, apiKey, text("d@dane-good.test"));
    expect((await finalEvent(id)).type).toBe("delivered");
    expect((await firstAttempt(id)).tls).toMatchObject({ policy: "dane", verified: true });
    expect(receivedBy("dane", "d@dane-good.test")).toHaveLength(1);
  });

  it("DANE: a certificate that matches no TLSA record is deferred, never delivered", async () => {
    const id = await sendViaApi(app, apiKey, text("e@dane-bad.test"));
    const attempt = await firstAttempt(id);
    expect(attempt).toMatchObject({ outcome: "deferred", enhanced_code: "4.7.5", reply: expect.stringMatching(/no TLSA record of mx\.danebad\.test matches/) });
    expect(attempt.tls).toMatchObject({ policy: "dane", verified: false });
    expect((await finalEvent(id)).type).toBe("failed");
    expect(receivedBy("dane", "e@dane-bad.test")).toEqual([]);
  });

  it("no policy: opportunistic, delivered in clear to an MX without STARTTLS, verdict none", async () => {
    const id = await sendViaApi(app, apiKey, text("f@plain.test"));
    expect((await finalEvent(id)).type).toBe("delivered");
    expect((await firstAttempt(id)).tls).toEqual({ policy: "none", verified: false });
  });

  it("a restarted worker keeps enforcing a stored policy when an attacker strips the TXT record and blocks the fetch", async () => {
    // enforce-clear.test's policy was fetched above and stored (mta_sts_policies); its MX offers no STARTTLS.
    const { rows } = await app.ctx.database.pool.query("SELECT record_id FROM mta_sts_policies WHERE domain = 'enforce-clear.test'");
    expect(rows).toEqual([{ record_id: "20261202T000000" }]);
    await expectNoRecipientLeftQueued(app.ctx, 60_000);
    const databaseUrl = app.ctx.config.databaseUrl!;
    await app.stop();
    dns.remove("_mta-sts.enforce-clear.test");
    policies.delete("mta-sts.enforce-clear.test");
    app = await startTestApp({ ...appEnv, DATABASE_URL: databaseUrl });
    const id = await sendViaApi(app, apiKey, text("g@enforce-clear.test"));
    expect(await firstAttempt(id)).toMatchObject({ outcome: "deferred", enhanced_code: "4.7.10", reply: expect.stringMatching(/offered no STARTTLS/) });
    expect((await finalEvent(id)).type).toBe("failed");
    expect(receivedBy("clear", "g@enforce-clear.test")).toEqual([]);
  });
});
