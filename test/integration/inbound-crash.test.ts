import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../lib/storage/database";
import { addInboundRoute, createInboundAccount, sendToInbound, startInboundAppProcess, type InboundAppProcess } from "../support/inbound-process";
import { waitFor } from "../support/processes";
import { createTestDatabase } from "../support/test-database";
import { startReceiver, type Receiver } from "./webhooks-helpers";

/**
 * Stored before 250 (docs/adr/0800), proven with kill -9 of the app process:
 * a message the server answered 250 for is posted by the next process on the
 * same database, whether the process died before the post job ran or while
 * its POST was in flight. To the receiver it is one message: every POST
 * carries the same `webhook-id` (Standard Webhooks), which is what a receiver
 * deduplicates on.
 */
describe("inbound: kill -9 of the app process after 250", () => {
  const procs: InboundAppProcess[] = [];
  const receivers: Receiver[] = [];
  afterAll(async () => {
    for (const p of procs) await p.kill("SIGKILL");
    for (const r of receivers) await r.close();
  });

  const APP_ENV = { MAILROOM_WEBHOOK_RETRY_SCHEDULE: "1s,1s,1s", MAILROOM_WEBHOOK_TIMEOUT: "30s" };

  async function statusOf(databaseUrl: string): Promise<{ status: string; attempts: number }[]> {
    const database = openDatabase(databaseUrl, { max: 1 });
    try {
      return (await database.pool.query<{ status: string; attempts: number }>("SELECT status, attempts FROM inbound_messages")).rows;
    } finally {
      await database.close();
    }
  }

  it("killed before the post job ran: posted once after the restart", async () => {
    const databaseUrl = await createTestDatabase();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const account = await createInboundAccount(databaseUrl, "killed-early.example");
    // No job loops in the first process: the message can only be stored, never posted, before the kill.
    const first = await startInboundAppProcess(databaseUrl, { ...APP_ENV, MAILROOM_WORKERS: "off" });
    procs.push(first);
    await addInboundRoute(first.url, account.apiKey, "*@killed-early.example", `${receiver.url}/in`);
    const answer = await sendToInbound(first.inboundPort, { from: "a@sender.example", to: "desk@killed-early.example", subject: "before the post", text: "hello" });
    expect(answer).toMatch(/^250/);
    await first.kill("SIGKILL");
    expect(first.child.signalCode).toBe("SIGKILL");
    expect(receiver.requests).toHaveLength(0);
    expect(await statusOf(databaseUrl)).toEqual([{ status: "pending", attempts: 0 }]);

    const second = await startInboundAppProcess(databaseUrl, { ...APP_ENV, MAILROOM_WORKERS: "inline" });
    procs.push(second);
    const [req] = await receiver.waitFor(1, 60_000);
    const payload = new Webhook(account.webhookSigningKey).verify(req!.body, req!.headers) as { Subject: string; MessageID: string };
    expect(payload.Subject).toBe("before the post");
    expect(req!.headers["webhook-id"]).toBe(`msg_mailroom_inbound_${payload.MessageID}`);
    await waitFor("delivered", async () => (await statusOf(databaseUrl))[0]?.status === "delivered");
    // Nothing more comes: one POST in all. Delivered is final (only pending posts are taken), so
    // 500 ms catch a second POST already in flight.
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.requests).toHaveLength(1);
    expect(await statusOf(databaseUrl)).toEqual([{ status: "delivered", attempts: 1 }]);
    await second.kill("SIGTERM");
  }, 180_000);

  it("killed while its POST was in flight: posted again after the restart with the same webhook-id", async () => {
    const databaseUrl = await createTestDatabase();
    // The first POST is held without an answer (the process dies meanwhile); later ones get 200.
    const receiver = await startReceiver();
    receiver.script.push({ status: 200, hang: true });
    receivers.push(receiver);
    const account = await createInboundAccount(databaseUrl, "killed-midway.example");
    const first = await startInboundAppProcess(databaseUrl, { ...APP_ENV, MAILROOM_WORKERS: "inline" });
    procs.push(first);
    await addInboundRoute(first.url, account.apiKey, "*@killed-midway.example", `${receiver.url}/in`);
    const answer = await sendToInbound(first.inboundPort, { from: "b@sender.example", to: "desk@killed-midway.example", subject: "during the post", text: "hello" });
    expect(answer).toMatch(/^250/);
    await receiver.waitFor(1, 60_000);
    await first.kill("SIGKILL");
    expect(await statusOf(databaseUrl)).toEqual([{ status: "pending", attempts: 0 }]);

    const second = await startInboundAppProcess(databaseUrl, { ...APP_ENV, MAILROOM_WORKERS: "inline" });
    procs.push(second);
    await receiver.waitFor(2, 90_000);
    await waitFor("delivered", async () => (await statusOf(databaseUrl))[0]?.status === "delivered", 30_000);
    // Delivered is final (only pending posts are taken): 500 ms catch a third POST already in flight.
    await new Promise((r) => setTimeout(r, 500));
    // Two POSTs (the first never answered), one message to the receiver's eyes: the same webhook-id and body.
    expect(receiver.requests).toHaveLength(2);
    const [a, b] = receiver.requests;
    expect(new Set(receiver.requests.map((r) => r.headers["webhook-id"])).size).toBe(1);
    const verify = new Webhook(account.webhookSigningKey);
    expect(verify.verify(b!.body, b!.headers)).toEqual(verify.verify(a!.body, a!.headers));
    expect(await statusOf(databaseUrl)).toEqual([{ status: "delivered", attempts: 1 }]);
    await second.kill("SIGTERM");
  }, 240_000);
});
