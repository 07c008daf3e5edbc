import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../../lib/domain/accounts/api-keys";
import { domainHealthCheck } from "../../lib/maintenance/domain-health";
import { bearer, createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued, simpleEmail, waitFor } from "../support/delivery-helpers";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import { startTestApp, type TestApp } from "../support/test-app";

interface DomainJson {
  Domain: string;
  Status: string;
  VerifiedAt: number | null;
  Records: { Purpose: string; Type: string; Name: string; Value: string }[];
  Checks: { Check: string; Status: string; Detail: string; Fix: { Type: string; Name: string; Value: string } | null }[];
  CheckedAt: number | null;
  DkimSelector: string;
  DkimNextSelector: string | null;
  DkimPreviousSelector: string | null;
  DkimPreviousUntil: number | null;
  TrackingDomain: string | null;
  TrackingDomainVerified: boolean;
}

const HELO = "mta.mailroom.test";
const INVALID = { Errors: [{ Code: 422, Message: "Invalid request parameters", Field: "Domain" }] };

/** TXT character strings are at most 255 bytes (RFC 1035 §3.3): a DKIM key is published in several. */
const chunks = (value: string) => value.match(/.{1,255}/g)!;

/** The domains API (docs/contract.md §17.5, docs/adr/0134) against a real app and the rig's DNS server. */
describe("domains API", { timeout: 180_000 }, () => {
  let app: TestApp;
  let dns: FakeDns;
  let apiKey: string;
  let accountId: string;
  let otherKey: string;
  beforeAll(async () => {
    dns = await startFakeDns();
    app = await startTestApp({ MAILROOM_DNS_SERVERS: dns.address, MAILROOM_HELO_NAME: HELO });
    ({ apiKey, accountId } = await createTestAccount(app.ctx, { name: "Shop" }));
    ({ apiKey: otherKey } = await createTestAccount(app.ctx, { name: "Other", domain: "other.test" }));
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
    await dns?.stop();
  });

  const call = async (method: string, path: string, body?: unknown, key = apiKey) => {
    const res = await app.fetch(`/api/v1${path}`, { method, headers: bearer(key), body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as DomainJson & { Domains: DomainJson[]; Errors?: unknown[] } };
  };
  const send = (from: string) =>
    app.fetch("/api/v1/email", { method: "POST", headers: bearer(apiKey), body: JSON.stringify({ ...simpleEmail("ann@example.org"), From: { email: from, name: "Shop" } }) });
  const record = (d: DomainJson, purpose: string) => d.Records.find((r) => r.Purpose === purpose)!;

  it("adds a domain with every record to publish; mail From it is refused until it verifies through DNS, then sent", async () => {
    const added = await call("POST", "/domains", { Domain: " Mail.Shop.Test " });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ Domain: "mail.shop.test", Status: "pending", VerifiedAt: null, Checks: [], DkimSelector: "mailroom" });
    expect(added.body.Records.map((r) => [r.Purpose, r.Type, r.Name])).toEqual([
      ["verification", "TXT", "_mailroom.mail.shop.test"],
      ["dkim", "TXT", "mailroom._domainkey.mail.shop.test"],
      ["spf", "TXT", "mail.shop.test"],
      ["return-path", "MX", "bounces.mail.shop.test"],
      ["spf", "TXT", "bounces.mail.shop.test"],
      ["dmarc", "TXT", "_dmarc.mail.shop.test"],
    ]);
    expect(record(added.body, "return-path").Value).toBe(`10 ${HELO}`);

    const before = await send("news@mail.shop.test");
    expect(before.status).toBe(403);
    expect(await before.json()).toEqual({ Errors: [{ Code: 32, Message: "Domain is not activated", Field: "From.email" }] });

    // Nothing published: the check fails and says what to publish.
    const unpublished = await call("POST", "/domains/mail.shop.test/verify");
    expect(unpublished.status).toBe(200);
    expect(unpublished.body.Status).toBe("pending");
    const verification = unpublished.body.Checks.find((c) => c.Check === "verification")!;
    expect(verification).toMatchObject({ Status: "fail", Fix: { Type: "TXT", Name: "_mailroom.mail.shop.test", Value: record(added.body, "verification").Value } });

    dns.set("_mailroom.mail.shop.test", { TXT: [record(added.body, "verification").Value] });
    const verified = await call("POST", "/domains/mail.shop.test/verify");
    expect(verified.body.Status).toBe("verified");
    expect(verified.body.VerifiedAt).toBeGreaterThan(0);
    expect(verified.body.CheckedAt).toBeGreaterThan(0);

    const after = await send("news@mail.shop.test");
    expect(after.status).toBe(200);

    const listed = await call("GET", "/domains");
    expect(listed.status).toBe(200);
    expect(listed.body.Domains.map((d) => [d.Domain, d.Status])).toEqual([
      ["example.com", "verified"],
      ["mail.shop.test", "verified"],
    ]);
    expect(listed.body.Domains[1]!.Checks.map((c) => c.Check)).toEqual(["verification", "dkim", "spf", "dmarc", "alignment", "return-path-mx", "ptr"]);
  });

  it("checks DKIM, SPF, DMARC, alignment, the Return-Path MX and PTR against what is published", async () => {
    const d = (await call("GET", "/domains/mail.shop.test")).body;
    const failing = (await call("GET", "/domains/mail.shop.test?check=true")).body.Checks;
    expect(Object.fromEntries(failing.map((c) => [c.Check, c.Status]))).toEqual({
      verification: "pass",
      dkim: "fail",
      spf: "warn", // the EHLO name has no address yet: SPF cannot be evaluated
      dmarc: "fail",
      alignment: "warn",
      "return-path-mx": "fail",
      ptr: "fail",
    });
    expect(failing.find((c) => c.Check === "dmarc")!.Fix).toEqual({ Type: "TXT", Name: "_dmarc.mail.shop.test", Value: record(d, "dmarc").Value });

    dns.set(HELO, { A: ["127.0.0.1"] });
    dns.set("1.0.0.127.in-addr.arpa", { PTR: [HELO] });
    dns.set("mailroom._domainkey.mail.shop.test", { TXT: [chunks(record(d, "dkim").Value)] });
    dns.set("bounces.mail.shop.test", { MX: [{ exchange: HELO, priority: 10 }], TXT: [record(d, "spf").Value] });
    dns.set("_dmarc.mail.shop.test", { TXT: ["v=DMARC1; p=reject; rua=mailto:dmarc@bounces.mail.shop.test"] });
    const passing = (await call("GET", "/domains/mail.shop.test?check=true")).body.Checks;
    expect(passing.filter((c) => c.Status !== "pass")).toEqual([]);

    // An SPF that does not name the instance, a DMARC at p=none, a PTR naming another host.
    dns.set("bounces.mail.shop.test", { MX: [{ exchange: HELO, priority: 10 }], TXT: ["v=spf1 ip4:192.0.2.1 -all"] });
    dns.set("_dmarc.mail.shop.test", { TXT: ["v=DMARC1; p=none"] });
    dns.set("1.0.0.127.in-addr.arpa", { PTR: ["host-1.isp.test"] });
    const regressed = Object.fromEntries((await call("POST", "/domains/mail.shop.test/verify")).body.Checks.map((c) => [c.Check, c]));
    expect(regressed.spf).toMatchObject({ Status: "fail", Fix: { Type: "TXT", Name: "bounces.mail.shop.test", Value: `v=spf1 a:${HELO} ~all` } });
    expect(regressed.dmarc).toMatchObject({ Status: "warn", Fix: { Value: "v=DMARC1; p=quarantine; rua=mailto:dmarc@bounces.mail.shop.test" } });
    expect(regressed.ptr).toMatchObject({ Status: "fail", Fix: { Type: "PTR", Name: "1.0.0.127.in-addr.arpa", Value: HELO } });
    // Still verified: a record lost later does not stop the domain's mail.
    expect((await call("GET", "/domains/mail.shop.test")).body.Status).toBe("verified");
  });

  it("rotates the DKIM key: the new selector signs once its record verifies, the old one stays published", async () => {
    const rotated = await call("POST", "/domains/mail.shop.test/dkim/rotate");
    expect(rotated.status).toBe(200);
    const next = rotated.body.DkimNextSelector!;
    expect(next).toMatch(/^mailroom-\d{8}-[0-9a-f]{4}$/);
    expect(rotated.body.DkimSelector).toBe("mailroom");
    const nextRecord = record(rotated.body, "dkim-next");
    expect(nextRecord.Name).toBe(`${next}._domainkey.mail.shop.test`);

    const unpublished = await call("POST", "/domains/mail.shop.test/verify");
    expect(unpublished.body).toMatchObject({ DkimSelector: "mailroom", DkimNextSelector: next });

    dns.set(nextRecord.Name, { TXT: [chunks(nextRecord.Value)] });
    // A check whose lookup did not answer is a warn and switches nothing: checked again until one finds the record.
    const switched = await waitFor(
      "the rotation to switch once the new selector's record is found",
      async () => {
        const r = await call("POST", "/domains/mail.shop.test/verify");
        return r.body.DkimSelector === next ? r : undefined;
      },
      10_000,
    );
    expect(switched.body).toMatchObject({ DkimSelector: next, DkimNextSelector: null, DkimPreviousSelector: "mailroom" });
    expect(record(switched.body, "dkim").Value).toBe(nextRecord.Value);
    expect(record(switched.body, "dkim-previous").Name).toBe("mailroom._domainkey.mail.shop.test");
    // Kept MAILROOM_DKIM_OLD_SELECTOR_DAYS (default 7), then the daily run drops it.
    const until = switched.body.DkimPreviousUntil! * 1000;
    expect(Math.abs(until - (Date.now() + 7 * 86_400_000))).toBeLessThan(60_000);
    expect(await domainHealthCheck.run(app.ctx, new Date(until - 60_000))).toMatchObject({ selectorsDropped: 0 });
    expect((await call("GET", "/domains/mail.shop.test")).body.DkimPreviousSelector).toBe("mailroom");
    const daily = await domainHealthCheck.run(app.ctx, new Date(until + 1000));
    expect(daily).toMatchObject({ selectorsDropped: 1 });
    expect(daily.checked).toBeGreaterThanOrEqual(3);
    const dropped = (await call("GET", "/domains/mail.shop.test")).body;
    expect(dropped).toMatchObject({ DkimSelector: next, DkimPreviousSelector: null, DkimPreviousUntil: null });
    expect(dropped.Records.some((r) => r.Purpose === "dkim-previous")).toBe(false);
  });

  it("another account's key sees 404 for this account's domain and cannot delete or check it", async () => {
    for (const [method, path] of [
      ["GET", "/domains/mail.shop.test"],
      ["POST", "/domains/mail.shop.test/verify"],
      ["POST", "/domains/mail.shop.test/dkim/rotate"],
      ["PATCH", "/domains/mail.shop.test"],
      ["DELETE", "/domains/mail.shop.test"],
    ] as const) {
      const r = await call(method, path, method === "PATCH" ? { TrackingDomain: "track.mail.shop.test" } : undefined, otherKey);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body).toEqual({ Errors: [{ Code: 404, Message: "Resource not found" }] });
    }
    expect((await call("GET", "/domains", undefined, otherKey)).body.Domains.map((d) => d.Domain)).toEqual(["other.test"]);
    expect((await call("GET", "/domains/mail.shop.test")).body.Status).toBe("verified");
  });

  it("a send or read key gets the contract's 403 for changes; a read key may list", async () => {
    const sendKey = (await createApiKey(app.ctx.database, accountId, "sender", { scope: "send" })).apiKey;
    const readKey = (await createApiKey(app.ctx.database, accountId, "reader", { scope: "read" })).apiKey;
    for (const key of [sendKey, readKey]) {
      for (const [method, path, body] of [
        ["POST", "/domains", { Domain: "scoped.shop.test" }],
        ["POST", "/domains/mail.shop.test/verify", undefined],
        ["DELETE", "/domains/mail.shop.test", undefined],
      ] as const) {
        const r = await call(method, path, body, key);
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(r.body.Errors).toEqual([{ Code: 403, Message: expect.stringMatching(/^API key scope does not allow this request: this key's scope is (send|read), the request needs a full key$/) }]);
      }
    }
    expect((await call("GET", "/domains", undefined, sendKey)).status).toBe(403);
    expect((await call("GET", "/domains", undefined, readKey)).status).toBe(200);
  });

  it("refuses bad input with the 422 envelope", async () => {
    for (const body of [{}, { Domain: "x".repeat(300) }, { Domain: `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.com` }, { Domain: "bücher.example" }, { Domain: "example..com" }, { Domain: "localhost" }, { Domain: 42 }]) {
      const r = await call("POST", "/domains", body);
      expect(r.status, JSON.stringify(body).slice(0, 40)).toBe(422);
      expect(r.body).toEqual(INVALID);
    }
    for (const body of ["{not json", "[1,2]"]) {
      const r = await call("POST", "/domains", body);
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ Errors: [{ Code: 422, Message: "Invalid request parameters" }] });
    }
    // Already the account's.
    expect((await call("POST", "/domains", { Domain: "MAIL.shop.test" })).body).toEqual(INVALID);
    expect((await call("GET", `/domains/${"a".repeat(300)}`)).status).toBe(422);
    expect((await call("GET", "/domains/mail.shop.test?check=maybe")).status).toBe(422);
    expect((await call("GET", "/domains/nope.shop.test")).status).toBe(404);
    const tracking = await call("PATCH", "/domains/mail.shop.test", { TrackingDomain: "track.elsewhere.test" });
    expect(tracking.body).toEqual({ Errors: [{ Code: 422, Message: "Invalid request parameters", Field: "TrackingDomain" }] });
  });

  it("deletes a domain: mail From it is refused again, and a second delete is 404", async () => {
    const added = await call("POST", "/domains", { Domain: "gone.shop.test" });
    dns.set("_mailroom.gone.shop.test", { TXT: [record(added.body, "verification").Value] });
    expect((await call("POST", "/domains/gone.shop.test/verify")).body.Status).toBe("verified");
    const del = await call("DELETE", "/domains/gone.shop.test");
    expect(del).toEqual({ status: 200, body: {} });
    expect((await call("DELETE", "/domains/gone.shop.test")).status).toBe(404);
    expect((await call("GET", "/domains")).body.Domains.map((d) => d.Domain)).not.toContain("gone.shop.test");
    // The verified-domain memo lasts 5 s (lib/domain/sending/send-email.ts): refused within a poll's deadline.
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline && (status = (await send("a@gone.shop.test")).status) !== 403) await new Promise((r) => setTimeout(r, 500));
    expect(status).toBe(403);
  });
});
