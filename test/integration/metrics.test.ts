import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestAccount } from "../support/fixtures";
import { waitFor } from "../support/processes";
import { startTestApp, type TestApp } from "../support/test-app";

/** /metrics reports deliveries by outcome, webhook attempts by result and the queue. */
describe("operational metrics", () => {
  let app: TestApp;
  let receiver: http.Server;
  const scrape = async () =>
    (await app.fetch("/metrics", { headers: { Authorization: "Bearer scrape-token" } })).text();
  const value = (text: string, series: string) => {
    const line = text.split("\n").find((l) => l.startsWith(`${series} `));
    return line ? Number(line.split(" ")[1]) : undefined;
  };

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_METRICS_TOKEN: "scrape-token" });
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200).end("ok"));
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
  });
  afterAll(async () => {
    await app?.stop();
    receiver?.close();
  });

  it("counts deliveries by outcome and webhook attempts by result, and shows the queue", async () => {
    const { apiKey } = await createTestAccount(app.ctx);
    const hook = await app.fetch("/api/v1/webhooks", {
      method: "POST",
      headers: bearer(apiKey),
      body: JSON.stringify({ Event: "delivery", WebhookURL: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/` }),
    });
    expect(hook.status).toBe(200);
    for (const to of ["ann@example.org", "bounce@example.org"]) {
      const res = await app.fetch("/api/v1/email", {
        method: "POST",
        headers: bearer(apiKey),
        body: JSON.stringify({ From: { email: "a@example.com" }, To: [{ email: to }], Subject: "m", ContentType: "Text", PlainContent: "x" }),
      });
      expect(res.status).toBe(200);
    }
    const text = await waitFor("the outcomes to be counted", async () => {
      const t = await scrape();
      return value(t, 'mailroom_deliveries_total{outcome="delivered"}') === 1 &&
        value(t, 'mailroom_deliveries_total{outcome="failed"}') === 1 &&
        value(t, 'mailroom_webhook_attempts_total{result="delivered"}') === 1
        ? t
        : undefined;
    }, 30_000, 200);
    expect(text).toContain("# TYPE mailroom_queue_depth gauge");
    expect(text).toContain("# TYPE mailroom_queue_oldest_age_seconds gauge");
  });

  it("reports waiting jobs and their age when no worker takes them", async () => {
    const idle = await startTestApp({ MAILROOM_METRICS_TOKEN: "scrape-token", MAILROOM_WORKERS: "off" });
    try {
      const { apiKey } = await createTestAccount(idle.ctx);
      const res = await idle.fetch("/api/v1/email", {
        method: "POST",
        headers: bearer(apiKey),
        body: JSON.stringify({ From: { email: "a@example.com" }, To: [{ email: "ann@example.org" }], Subject: "m", ContentType: "Text", PlainContent: "x" }),
      });
      expect(res.status).toBe(200);
      await new Promise((r) => setTimeout(r, 1100));
      const text = await (await idle.fetch("/metrics", { headers: { Authorization: "Bearer scrape-token" } })).text();
      expect(value(text, 'mailroom_queue_depth{queue="deliver"}')).toBe(1);
      expect(value(text, 'mailroom_queue_oldest_age_seconds{queue="deliver"}')).toBeGreaterThanOrEqual(1);
    } finally {
      await idle.stop();
    }
  });
});
