import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dnsResolver } from "../../lib/net/dns-resolver";
import { checkDomain, domainDepsFrom } from "../../lib/domain/accounts/domain-operations";
import { addSenderDomain } from "../../lib/domain/accounts/sender-domains";
import { dnsRecordsFor } from "../../lib/domain/accounts/sender-domains";
import { createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued, sendViaApi, waitForEvent } from "../support/delivery-helpers";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The fake internet of test rigs: a DNS server on loopback (test/support/fake-dns.ts) that
 * MAILROOM_DNS_SERVERS points every lookup of delivery and of the domain checks at, and remote
 * MX hosts on 127.0.0.x at MAILROOM_MX_PORT.
 */
describe("fake DNS", () => {
  let dns: FakeDns;
  beforeAll(async () => {
    dns = await startFakeDns();
  });
  afterAll(async () => dns?.stop());

  it("answers MX, A, AAAA, TXT and CNAME from its table, changed at run time", async () => {
    const resolver = dnsResolver({ servers: [dns.address], ttlMs: 0 });
    dns.mx("shop.test", [{ name: "mx1.shop.test", address: "127.0.0.7" }]);
    dns.set("v6.shop.test", { AAAA: ["::1"] });
    dns.set("txt.shop.test", { TXT: ["v=spf1 -all", ["two ", "chunks"]] });
    dns.set("alias.shop.test", { CNAME: "mx1.shop.test" });
    expect(await resolver.resolveMx("shop.test")).toEqual([{ exchange: "mx1.shop.test", priority: 10 }]);
    expect(await resolver.resolve4("mx1.shop.test")).toEqual(["127.0.0.7"]);
    expect(await resolver.resolve4("alias.shop.test")).toEqual(["127.0.0.7"]);
    expect(await resolver.resolve6("v6.shop.test")).toEqual(["::1"]);
    expect(await resolver.resolveTxt("txt.shop.test")).toEqual([["v=spf1 -all"], ["two ", "chunks"]]);
    dns.set("mx1.shop.test", { A: ["127.0.0.8"] });
    expect(await resolver.resolve4("mx1.shop.test")).toEqual(["127.0.0.8"]);
  });

  it("says NXDOMAIN for an unknown name and NODATA for a missing type, as the internet does", async () => {
    const resolver = dnsResolver({ servers: [dns.address], ttlMs: 0 });
    await expect(resolver.resolveMx("nowhere.test")).rejects.toMatchObject({ code: "ENOTFOUND" });
    dns.set("a-only.test", { A: ["127.0.0.9"] });
    await expect(resolver.resolveMx("a-only.test")).rejects.toMatchObject({ code: "ENODATA" });
  });

  it("answers over TCP what does not fit a UDP datagram", async () => {
    const resolver = dnsResolver({ servers: [dns.address], ttlMs: 0 });
    const long = Array.from({ length: 6 }, (_, i) => `${i}`.repeat(200));
    dns.set("big.test", { TXT: long });
    expect((await resolver.resolveTxt("big.test")).map((r) => r.join(""))).toEqual(long);
    expect(dns.questions.some((q) => q.name === "big.test" && q.transport === "tcp")).toBe(true);
  });
});

describe("MAILROOM_DNS_SERVERS and MAILROOM_MX_PORT", () => {
  let dns: FakeDns;
  let mx: SmtpSink;
  let app: TestApp;
  let apiKey: string;
  let accountId: string;

  beforeAll(async () => {
    dns = await startFakeDns();
    // The remote MX on another loopback address than the app's, at the rig's port.
    mx = await startSmtpSink({ host: "127.0.0.21" });
    dns.mx("remote.test", [{ name: "mx.remote.test", address: "127.0.0.21" }]);
    app = await startTestApp({
      MAILROOM_DELIVERY: "mx",
      MAILROOM_ALLOW_PRIVATE_MX: "true",
      MAILROOM_DNS_SERVERS: dns.address,
      MAILROOM_MX_PORT: String(mx.port),
    });
    const account = await createTestAccount(app.ctx);
    apiKey = account.apiKey;
    accountId = account.accountId;
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
    await mx?.stop();
    await dns?.stop();
  });

  it("delivers by the rig's MX answer to its port", async () => {
    const id = await sendViaApi(app, apiKey, { From: { email: "shop@example.com" }, To: [{ email: "ann@remote.test" }], Subject: "fake", ContentType: "Text", PlainContent: "hi" });
    const e = await waitForEvent(app.ctx, id, "delivered", "ann@remote.test");
    expect(e.details).toMatchObject({ mxHost: "mx.remote.test" });
    expect(mx.received.some((m) => m.rcptTo.includes("ann@remote.test"))).toBe(true);
    expect(dns.questions).toContainEqual(expect.objectContaining({ name: "remote.test", type: "MX" }));
  });

  it("verifies a sender domain against the rig's resolvers", async () => {
    const domain = await addSenderDomain(app.ctx.database, accountId, "sender.test");
    const verification = dnsRecordsFor(domain).find((r) => r.purpose === "verification")!;
    dns.set(verification.name, { TXT: [verification.value] });
    const deps = domainDepsFrom({ database: app.ctx.database, lookup: app.ctx.domainLookup, publicUrl: app.ctx.publicUrl, delivery: app.ctx.config.delivery });
    const checked = await checkDomain(deps, accountId, domain.name);
    expect(checked?.row.status).toBe("verified");
  });
});
