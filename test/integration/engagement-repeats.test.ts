import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../../lib/domain/accounts/accounts";
import { ENGAGEMENT_WINDOW_SECONDS } from "../../lib/domain/events/recipient-events";
import { createTestAccount } from "../support/fixtures";
import { eventsOf, sendViaApi, simpleEmail, waitFor, waitForEvent } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";
import { registerWebhook, sleep, startReceiver, until, type Receiver } from "./webhooks-helpers";

/**
 * Engagement repeats (ADR 0306): reloading a pixel or a link logs one event and fires one
 * webhook per window (ENGAGEMENT_WINDOW_SECONDS), counted in PostgreSQL so
 * that two app processes on one database agree.
 */
describe("repeated opens and clicks of one copy", () => {
  let app: TestApp;
  let other: TestApp; // a second app process on the same database (behind one balancer)
  let receiver: Receiver;
  let account: CreatedAccount;
  beforeAll(async () => {
    app = await startTestApp();
    other = await startTestApp({ DATABASE_URL: app.ctx.config.databaseUrl!, MAILROOM_WORKERS: "off" });
    receiver = await startReceiver();
    account = await createTestAccount(app.ctx);
    await registerWebhook(app, account.apiKey, "open", `${receiver.url}/open`);
    await registerWebhook(app, account.apiKey, "click", `${receiver.url}/click`);
  });
  afterAll(async () => {
    await other?.stop();
    await app?.stop();
    await receiver?.close();
  });

  async function sendAndCapture(to: string) {
    const id = await sendViaApi(app, account.apiKey, simpleEmail(to, { HTMLContent: '<p><a href="https://example.org/a">a</a> <a href="https://example.org/b">b</a></p>' }));
    await waitForEvent(app.ctx, id, "delivered", to);
    const raw = await waitFor("the sandbox copy", async () => {
      const { rows } = await app.ctx.database.pool.query("SELECT raw FROM sandbox_messages WHERE mailroom_message_id = $1", [id]);
      return rows[0]?.raw as Buffer | undefined;
    });
    const html = String((await simpleParser(raw)).html);
    const pixel = new URL(/<img src="([^"]+\/t\/o\/[^"]+)"/.exec(html)![1]!).pathname;
    const links = [...html.matchAll(/href="([^"]*\/t\/c\/[^"]+)"/g)].map((m) => new URL(m[1]!.replace(/&amp;/g, "&")).pathname);
    return { id, pixel, links };
  }

  /** Moves the copy's windows back in time, as if the window had passed. */
  async function expireWindows(id: string) {
    await app.ctx.database.pool.query(
      `UPDATE engagement_windows SET window_start = window_start - make_interval(secs => $2)
        WHERE recipient_id IN (SELECT id FROM message_recipients WHERE message_id = $1)`,
      [id, ENGAGEMENT_WINDOW_SECONDS + 1],
    );
  }

  const count = (id: string, type: string) => eventsOf(app.ctx, id).then((es) => es.filter((e) => e.type === type).length);
  const hooks = (path: string, id: string) =>
    receiver.requests.filter((r) => r.path === path && (r.json as { EventData?: { MessageID?: string } }).EventData?.MessageID === id).length;

  it("two rapid pixel loads, through two app processes at once, log one `opened` and fire one webhook; after the window a new one", async () => {
    const m = await sendAndCapture("reader@example.org");
    const loads = await Promise.all([app.fetch(m.pixel), other.fetch(m.pixel), app.fetch(m.pixel), other.fetch(m.pixel)]);
    for (const res of loads) {
      expect(res.status).toBe(200); // every load still gets its pixel
      expect(res.headers.get("content-type")).toBe("image/gif");
    }
    expect(await count(m.id, "opened")).toBe(1);
    const { rows } = await app.ctx.database.pool.query(
      "SELECT hits, logged FROM engagement_windows w JOIN message_recipients r ON r.id = w.recipient_id WHERE r.message_id = $1 AND w.kind = 'opened'",
      [m.id],
    );
    expect(rows.map((r) => [Number(r.hits), Number(r.logged)])).toEqual([[4, 1]]); // counted, logged once
    await until(async () => hooks("/open", m.id), (n) => n >= 1);
    await sleep(500);
    expect(hooks("/open", m.id)).toBe(1);

    await expireWindows(m.id);
    await other.fetch(m.pixel);
    expect(await count(m.id, "opened")).toBe(2);
    await until(async () => hooks("/open", m.id), (n) => n >= 2);
  });

  it("clicks are windowed per link: a repeat of one link is counted, another link is logged", async () => {
    const m = await sendAndCapture("clicker@example.org");
    expect(m.links).toHaveLength(2);
    const [a, b] = m.links as [string, string];
    for (const link of [a, a, b, a]) {
      const res = await (link === b ? other : app).fetch(link, { redirect: "manual" });
      expect(res.status).toBe(302); // the redirect is never withheld
    }
    const clicks = (await eventsOf(app.ctx, m.id)).filter((e) => e.type === "clicked").map((e) => e.url);
    expect(clicks).toEqual(["https://example.org/a", "https://example.org/b"]);
    await until(async () => hooks("/click", m.id), (n) => n >= 2);
    await sleep(500);
    expect(hooks("/click", m.id)).toBe(2);
    await expireWindows(m.id);
    await app.fetch(a, { redirect: "manual" });
    expect((await eventsOf(app.ctx, m.id)).filter((e) => e.type === "clicked").map((e) => e.url)).toEqual([
      "https://example.org/a",
      "https://example.org/b",
      "https://example.org/a",
    ]);
  });

  it("does not window unsubscribes into silence: the first one is logged whenever it comes", async () => {
    const m = await sendAndCapture("leaver@example.org");
    await app.fetch(m.pixel);
    const { rows } = await app.ctx.database.pool.query("SELECT raw FROM sandbox_messages WHERE mailroom_message_id = $1", [m.id]);
    const unsubscribe = new URL(/^List-Unsubscribe: <([^>]+)>/m.exec(String(rows[0].raw))![1]!).pathname;
    await app.fetch(unsubscribe, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    await other.fetch(unsubscribe, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    expect(await count(m.id, "unsubscribed")).toBe(1);
    expect(await count(m.id, "opened")).toBe(1);
  });
});
