import http from "node:http";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued, sendViaApi, simpleEmail, waitFor, waitForEvent } from "../support/delivery-helpers";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import { startTestApp, type TestApp } from "../support/test-app";

/** A GET with the Host header given (fetch does not let it be set), answered status and Location. */
function getWithHost(url: string, host: string): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port, pathname } = new URL(url);
    http
      .get({ hostname, port, path: pathname, headers: { Host: host } }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
      })
      .on("error", reject);
  });
}

/** A tracking domain per sender domain (docs/adr/0135): set by the API, used once its CNAME is found. */
describe("tracking domains", { timeout: 180_000 }, () => {
  let app: TestApp;
  let dns: FakeDns;
  let apiKey: string;
  beforeAll(async () => {
    dns = await startFakeDns();
    app = await startTestApp({ MAILROOM_DNS_SERVERS: dns.address });
    ({ apiKey } = await createTestAccount(app.ctx, { name: "Brand", domain: "mail.brand.test" }));
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
    await dns?.stop();
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.fetch(`/api/v1${path}`, { method, headers: bearer(apiKey), body: body === undefined ? undefined : JSON.stringify(body) });
    return (await res.json()) as { TrackingDomain: string | null; TrackingDomainVerified: boolean; Records: { Purpose: string; Type: string; Name: string; Value: string }[]; Checks: { Check: string; Status: string }[] };
  };

  async function sendAndCaptureLinks(to: string) {
    const id = await sendViaApi(app, apiKey, simpleEmail(to, { From: { name: "Brand", email: "news@mail.brand.test" } }));
    await waitForEvent(app.ctx, id, "delivered", to);
    const raw = await waitFor("the sandbox copy", async () => {
      const { rows } = await app.ctx.database.pool.query("SELECT raw FROM sandbox_messages WHERE mailroom_message_id = $1", [id]);
      return rows[0]?.raw as Buffer | undefined;
    });
    const parsed = await simpleParser(raw);
    const html = typeof parsed.html === "string" ? parsed.html : "";
    return { id, links: [...html.matchAll(/(?:href|src)="([^"]+\/t\/[ocu]\/[^"]+)"/g)].map((m) => m[1]!) };
  }

  it("links stay on the instance's host until the CNAME is found, then use the tracking domain; a click through it is recorded", async () => {
    const set = await call("PATCH", "/domains/mail.brand.test", { TrackingDomain: "Track.Mail.Brand.Test" });
    expect(set).toMatchObject({ TrackingDomain: "track.mail.brand.test", TrackingDomainVerified: false });
    const cname = set.Records.find((r) => r.Purpose === "tracking")!;
    const publicHost = new URL(app.ctx.publicUrl).hostname;
    expect(cname).toEqual({ Purpose: "tracking", Type: "CNAME", Name: "track.mail.brand.test", Value: publicHost });

    const before = await sendAndCaptureLinks("before@example.org");
    expect(before.links.length).toBeGreaterThan(0);
    for (const link of before.links) expect(new URL(link).hostname).toBe(publicHost);

    dns.set("track.mail.brand.test", { CNAME: publicHost });
    const checked = await call("POST", "/domains/mail.brand.test/verify");
    expect(checked.TrackingDomainVerified).toBe(true);
    expect(checked.Checks.find((c) => c.Check === "tracking")?.Status).toBe("pass");

    const after = await sendAndCaptureLinks("after@example.org");
    const port = new URL(app.ctx.publicUrl).port;
    for (const link of after.links) expect(new URL(link).host).toBe(`track.mail.brand.test:${port}`);
    const click = after.links.find((l) => l.includes("/t/c/"))!;
    // The CNAME brings the request to the instance with the tracking domain in Host.
    const res = await getWithHost(`${app.ctx.publicUrl}${new URL(click).pathname}`, `track.mail.brand.test:${port}`);
    expect(res).toEqual({ status: 302, location: "https://example.org/welcome?a=1&b=2" });
    const clicked = await waitForEvent(app.ctx, after.id, "clicked", "after@example.org");
    expect(clicked.url).toBe("https://example.org/welcome?a=1&b=2");
  });

  it("a CNAME removed later turns the tracking domain off again; null removes it", async () => {
    dns.remove("track.mail.brand.test");
    expect((await call("POST", "/domains/mail.brand.test/verify")).TrackingDomainVerified).toBe(false);
    const removed = await call("PATCH", "/domains/mail.brand.test", { TrackingDomain: null });
    expect(removed).toMatchObject({ TrackingDomain: null, TrackingDomainVerified: false });
    expect(removed.Records.some((r) => r.Purpose === "tracking")).toBe(false);
  });
});
