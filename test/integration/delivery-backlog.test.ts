import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_MESSAGES } from "../../lib/contract/errors";
import { startWorkers, type RunningWorkers } from "../../lib/workers/start-workers";
import { startCountingSink, type CountingSink } from "../support/counting-sink";
import { pendingRecipients } from "../support/final-events";
import { bearer, createTestAccount } from "../support/fixtures";
import { plainAuth, rawSession } from "../support/smtp-raw";
import { submissionEnv } from "../support/submission";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * docs/contract.md §18: past MAILROOM_MAX_BACKLOG messages waiting for a
 * delivery worker, POST /email, batches and SMTP submission push back (429
 * with Retry-After and the envelope; 451) and nothing is stored, scheduled
 * sends included; once the workers drain the backlog, mail is accepted again.
 * Delivery is paused (no workers) until the test starts it.
 */
const MAX = 10;

describe("the delivery backlog pushes acceptance back", () => {
  let app: TestApp;
  let sink: CountingSink;
  let workers: RunningWorkers | undefined;
  let key: string;
  let accountId: string;
  let smtpPort: number;
  let n = 0;
  const message = (extra: Record<string, unknown> = {}) => ({
    From: { name: "Ann", email: "ann@example.com" },
    To: [{ email: `reader${n++}@example.net` }],
    Subject: "Hello",
    ContentType: "HTML",
    HTMLContent: "<p>Hello</p>",
    ...extra,
  });
  const post = (path: string, body: unknown) => app.fetch(`/api/v1${path}`, { method: "POST", headers: bearer(key), body: JSON.stringify(body) });
  const messageCount = async () =>
    (await app.ctx.database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM messages WHERE account_id = $1", [accountId])).rows[0]!.n;

  beforeAll(async () => {
    sink = await startCountingSink();
    const submission = await submissionEnv();
    smtpPort = submission.port;
    app = await startTestApp({
      MAILROOM_WORKERS: "off",
      MAILROOM_MAX_BACKLOG: String(MAX),
      MAILROOM_DELIVERY: "relay",
      SMTP_RELAY_URL: `smtp://127.0.0.1:${sink.port}`,
      ...submission.env,
    });
    ({ apiKey: key, accountId } = await createTestAccount(app.ctx));
  });
  afterAll(async () => {
    await workers?.stop();
    await app?.stop();
    await sink?.stop();
  });

  it("accepts up to the maximum, then answers 429 with Retry-After and the envelope, storing nothing", async () => {
    for (let i = 0; i < MAX; i++) expect((await post("/email", message())).status).toBe(200);
    expect(await app.ctx.backlog.sample()).toBe(MAX);
    expect(await app.ctx.httpMetrics.registry.getSingleMetricAsString("mailroom_delivery_backlog_messages")).toMatch(new RegExp(`^mailroom_delivery_backlog_messages ${MAX}$`, "m"));

    const res = await post("/email", message());
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ Errors: [{ Code: 429, Message: ERROR_MESSAGES[429] }] });

    const batch = await post("/email/batch", [message(), message()]);
    expect(batch.status).toBe(429);
    expect(batch.headers.get("retry-after")).toBe("1");
    expect(await batch.json()).toEqual({ Errors: [{ Code: 429, Message: ERROR_MESSAGES[429] }] });
    expect(await messageCount()).toBe(MAX);
  });

  it("consumes nothing of a limited key's windows, and says so in its X-RateLimit headers", async () => {
    const limited = await createTestAccount(app.ctx, { name: "Limited", plan: "starter", domain: "limited.example" });
    const res = await app.fetch("/api/v1/email", {
      method: "POST",
      headers: bearer(limited.apiKey),
      body: JSON.stringify(message({ From: { email: "ann@limited.example" } })),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    // starter: 50 a minute, the tightest window; the refused message took none of it.
    expect(res.headers.get("x-ratelimit-limit")).toBe("50");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("50");
  });

  it("refuses a scheduled send too (docs/adr/0129): a SendAt a second ahead would be a way around the pushback", async () => {
    const res = await post("/email", message({ SendAt: Math.floor(Date.now() / 1000) + 3600 }));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(await messageCount()).toBe(MAX);
  });

  it("SMTP submission answers MAIL FROM with a 451 while the backlog is full", async () => {
    const s = rawSession(smtpPort);
    try {
      await s.waitFor(/^220 /m);
      s.send("EHLO client.example");
      await s.waitFor(/^250 /m);
      s.send(`AUTH PLAIN ${plainAuth(key)}`);
      await s.waitFor(/^235 /m);
      s.clear();
      s.send("MAIL FROM:<ann@example.com>");
      expect(await s.waitFor(/^451 .*$/m)).toMatch(/^451 4\.3\.2 Too many messages wait for delivery/m);
    } finally {
      s.end();
    }
  });

  it("accepts again once the workers have drained the backlog, and every waiting message is delivered", async () => {
    workers = await startWorkers(app.ctx, { workers: true, inbound: false, notifications: false, maintenance: false });
    const deadline = Date.now() + 30_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await post("/email", message())).status;
      if (status === 200) break;
      expect(status).toBe(429);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
    // The messages accepted before the pushback were delivered, not dropped.
    while (Date.now() < deadline && (await pendingRecipients(app.ctx.database.pool, accountId)) > 1) await new Promise((r) => setTimeout(r, 100));
    expect(sink.stats().messages).toBeGreaterThanOrEqual(MAX);
    expect(sink.addresses()).toContain("reader0@example.net");
  });
});
