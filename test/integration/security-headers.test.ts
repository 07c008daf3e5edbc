import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HTML_CSP } from "../../lib/http/security-headers";
import { createTestAccount } from "../support/fixtures";
import { sendViaApi, simpleEmail, waitFor, waitForEvent } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

/** Every HTML page the Hono side serves carries the security headers (ADR 0503). */
describe("security headers on Hono's HTML pages", () => {
  let app: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    app = await startTestApp();
    ({ apiKey } = await createTestAccount(app.ctx));
  });
  afterAll(async () => {
    await app?.stop();
  });

  function expectHtmlHeaders(res: Response) {
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toBe(HTML_CSP);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  }

  it("on the unsubscribe confirmation, result and not-valid pages", async () => {
    const to = "headers@example.org";
    const id = await sendViaApi(app, apiKey, simpleEmail(to));
    await waitForEvent(app.ctx, id, "delivered", to);
    const raw = await waitFor("the sandbox copy", async () => {
      const { rows } = await app.ctx.database.pool.query("SELECT raw FROM sandbox_messages WHERE mailroom_message_id = $1", [id]);
      return rows[0]?.raw as Buffer | undefined;
    });
    const unsubscribe = new URL(/^List-Unsubscribe: <([^>]+)>/m.exec(raw.toString())![1]!).pathname;

    const confirm = await app.fetch(unsubscribe);
    expect(confirm.status).toBe(200);
    expectHtmlHeaders(confirm);
    const html = await confirm.text();
    expect(html).toContain("<style>"); // allowed by style-src 'unsafe-inline'
    expect(html).not.toContain("<script");
    expect(html).toContain('<form method="post">'); // posts to itself: form-action 'self'

    const done = await app.fetch(unsubscribe, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "confirm=yes" });
    expect(done.status).toBe(200);
    expectHtmlHeaders(done);

    const invalid = await app.fetch("/t/u/not-a-token");
    expect(invalid.status).toBe(404);
    expectHtmlHeaders(invalid);
  });

  it("nosniff, without an HTML policy, on the JSON, pixel and health answers", async () => {
    for (const p of ["/healthz", "/t/o/not-a-token", "/api/v1/events"]) {
      const res = await app.fetch(p);
      expect(res.headers.get("x-content-type-options"), p).toBe("nosniff");
      expect(res.headers.get("content-security-policy"), p).toBeNull();
    }
  });
});
