import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getInboundAddress } from "../../lib/inbound/inbound-server";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { noSenderDns, sleep, startReceiver, until, type Receiver } from "./webhooks-helpers";

/**
 * Posts still to come of stored inbound messages (docs/adr/0807): a message
 * whose post waits for its retry counts toward MAILROOM_INBOUND_MAX_BACKLOG
 * (docs/contract.md §13.3), and concurrent `POST …/retry` calls of one
 * message post it once. Real SMTP, real HTTP receivers, the posting loop in
 * this process.
 */
const MAX = 2;
const RETRIES = 10;

describe("posts still to come", () => {
  let app: TestApp;
  let failing: Receiver;
  let ok: Receiver;
  let apiKey: string;

  beforeAll(async () => {
    app = await startTestApp(
      { MAILROOM_INBOUND_MAX_BACKLOG: String(MAX), MAILROOM_INBOUND_CONNECTIONS_PER_MINUTE: "10000", MAILROOM_WEBHOOK_RETRY_SCHEDULE: "1h" },
      { workers: { inboundPost: { authResolver: noSenderDns } } },
    );
    const account = await createTestAccount(app.ctx, { name: "Pending posts", domain: "pending-in.example" });
    apiKey = account.apiKey;
    failing = await startReceiver(() => ({ status: 500, body: "down" }));
    // Slow to answer: every retry below is asked for while the post it started is running.
    ok = await startReceiver(async () => {
      await sleep(1000);
      return { status: 200, body: "ok" };
    });
    for (const [Match, url] of [
      ["down@pending-in.example", `${failing.url}/in`],
      ["up@pending-in.example", `${ok.url}/in`],
    ]) {
      const res = await app.fetch("/api/v1/inbound/routes", { method: "POST", headers: bearer(apiKey), body: JSON.stringify({ Match, WebhookURL: url }) });
      expect(res.status).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    await failing?.close();
    await ok?.close();
  });

  const send = async (to: string, subject: string) => {
    const address = getInboundAddress(app.ctx)!;
    const t = nodemailer.createTransport({ host: address.host, port: address.port, secure: false, ignoreTLS: true });
    try {
      return (await t.sendMail({ envelope: { from: "ann@sender.example", to: [to] }, from: "ann@sender.example", to, subject, text: "Hello" })).response;
    } catch (err) {
      return err as { responseCode?: number; response?: string };
    } finally {
      t.close();
    }
  };

  it("posts a message once however many retries are asked for at once", async () => {
    expect(await send("up@pending-in.example", "retry me")).toMatch(/^250 /);
    const [first] = await ok.waitFor(1);
    const id = (first!.json as { MessageID: string }).MessageID;
    await until(
      async () => ((await (await app.fetch(`/api/v1/inbound/messages/${id}`, { headers: bearer(apiKey) })).json()) as { Status: string }).Status,
      (s) => s === "delivered",
    );
    const answers = await Promise.all(
      Array.from({ length: RETRIES }, () => app.fetch(`/api/v1/inbound/messages/${id}/retry`, { method: "POST", headers: bearer(apiKey) }).then((r) => r.status)),
    );
    expect(answers).toEqual(Array.from({ length: RETRIES }, () => 200));
    await ok.waitFor(2);
    await until(
      async () => ((await (await app.fetch(`/api/v1/inbound/messages/${id}`, { headers: bearer(apiKey) })).json()) as { Status: string }).Status,
      (s) => s === "delivered",
    );
    // Delivered, and every retry answered before: nothing can make it pending again, so 500 ms
    // catch a third POST already in flight.
    await sleep(500);
    expect(ok.requests).toHaveLength(2);
  });

  it("counts messages waiting for their retry in the backlog: past the maximum, 451 4.3.2 at RCPT", async () => {
    for (let i = 0; i < MAX; i++) expect(await send("down@pending-in.example", `failing ${i}`)).toMatch(/^250 /);
    // Each was posted once, answered 500, and waits an hour for its retry.
    await failing.waitFor(MAX);
    await until(
      async () => (await app.ctx.database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM inbound_messages WHERE attempts = 1 AND status = 'pending'")).rows[0]!.n,
      (n) => n === MAX,
    );
    expect(await app.ctx.inboundBacklog.sample()).toBe(MAX);
    const refused = (await send("up@pending-in.example", "one too many")) as { responseCode?: number; response?: string };
    expect(refused.responseCode).toBe(451);
    expect(refused.response).toMatch(/^451 4\.3\.2 /);
  });
});
