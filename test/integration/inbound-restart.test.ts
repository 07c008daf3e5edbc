import nodemailer from "nodemailer";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { getInboundAddress } from "../../lib/inbound/inbound-server";
import { inboundRetention } from "../../lib/maintenance/inbound-retention";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { createTestDatabase } from "../support/test-database";
import { startReceiver, type Receiver } from "./webhooks-helpers";

/**
 * Stored before 250 (docs/adr/0800): a message accepted by a process that
 * never posts it (no workers, then stopped) is posted by the next process
 * on the same database, once, with its signature; the retention purge
 * removes it after MAILROOM_INBOUND_RETENTION.
 */
describe("inbound: accepted, then the process goes away before the POST", () => {
  const apps: TestApp[] = [];
  let receiver: Receiver | undefined;
  afterAll(async () => {
    for (const a of apps) await a.stop().catch(() => {});
    await receiver?.close();
  });

  it("posts the message after the restart", async () => {
    receiver = await startReceiver();
    const DATABASE_URL = await createTestDatabase();
    const first = await startTestApp({ DATABASE_URL, MAILROOM_WORKERS: "off" });
    apps.push(first);
    const acct = await createTestAccount(first.ctx, { domain: "durable.example" });
    const res = await first.fetch("/api/v1/inbound/routes", {
      method: "POST",
      headers: bearer(acct.apiKey),
      body: JSON.stringify({ Match: "*@durable.example", WebhookURL: `${receiver.url}/in` }),
    });
    expect(res.status).toBe(200);
    const inbound = getInboundAddress(first.ctx)!;
    const t = nodemailer.createTransport({ host: inbound.host, port: inbound.port, secure: false, ignoreTLS: true });
    const info = await t.sendMail({ from: "a@sender.example", to: "keep@durable.example", subject: "survives", text: "hello" });
    t.close();
    expect(info.response).toMatch(/^250/);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.requests).toHaveLength(0);
    await first.stop();
    apps.splice(0);

    const second = await startTestApp({ DATABASE_URL });
    apps.push(second);
    const [req] = await receiver.waitFor(1, 30_000);
    const payload = new Webhook(acct.webhookSigningKey).verify(req!.body, req!.headers) as { Subject: string; OriginalRecipient: string };
    expect(payload).toMatchObject({ Subject: "survives", OriginalRecipient: "keep@durable.example" });
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.requests).toHaveLength(1);

    // Retention (MAILROOM_INBOUND_RETENTION, 7 days): kept before, purged with its attempts after.
    const { MessageID } = payload as unknown as { MessageID: string };
    expect(await inboundRetention.run(second.ctx, new Date(Date.now() + 6 * 86_400_000))).toMatchObject({ inboundMessages: 0 });
    expect((await second.fetch(`/api/v1/inbound/messages/${MessageID}`, { headers: bearer(acct.apiKey) })).status).toBe(200);
    // Its day has ended and all of it has expired: the day's table is dropped whole (docs/adr/0041).
    expect(await inboundRetention.run(second.ctx, new Date(Date.now() + 8 * 86_400_000))).toMatchObject({
      inboundMessages: 1,
      inboundPartitionsDropped: expect.any(Number),
      inboundPartitionsWaiting: 0,
    });
    expect((await second.fetch(`/api/v1/inbound/messages/${MessageID}/raw`, { headers: bearer(acct.apiKey) })).status).toBe(404);
    const left = await second.ctx.database.pool.query("SELECT count(*)::int AS n FROM inbound_attempts");
    expect(left.rows[0].n).toBe(0);
  }, 120_000);
});
