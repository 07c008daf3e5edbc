import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../../lib/domain/accounts/accounts";
import { getInboundAddress } from "../../lib/inbound/inbound-server";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { noSenderDns, startReceiver, until, type Receiver } from "./webhooks-helpers";

/**
 * One account's receiver that never answers holds at most `perDestination`
 * of a worker's inbound posts (docs/adr/0048): another account's mail is
 * posted at once, not after the hanging posts time out, and every message
 * handed back while its receiver was busy is posted once the receiver
 * answers again. Real SMTP to the inbound port, real HTTP receivers.
 */

const PER_DESTINATION = 4;
const SLOW_MESSAGES = 24;
// The hanging posts end only at the webhook timeout: a post that waited for them would come after it.
const TIMEOUT_MS = 8_000;
// How soon the other account's posts must arrive: well before that timeout, with room for a loaded machine.
const FAST_WITHIN_MS = 5_000;

describe("inbound posts: a receiver that hangs", () => {
  let app: TestApp;
  let slowAccount: CreatedAccount;
  let fastAccount: CreatedAccount;
  let slow: Receiver;
  let fast: Receiver;
  let hanging = true;

  beforeAll(async () => {
    app = await startTestApp(
      {
        MAILROOM_WEBHOOK_TIMEOUT: `${TIMEOUT_MS}ms`,
        MAILROOM_WEBHOOK_RETRY_SCHEDULE: "1s,1s,1s,1s,1s",
        MAILROOM_INBOUND_CONNECTIONS_PER_MINUTE: "10000",
      },
      { workers: { inboundPost: { authResolver: noSenderDns, perDestination: PER_DESTINATION, deferMs: 300 } } },
    );
    slowAccount = await createTestAccount(app.ctx, { name: "Slow receiver", domain: "slow-in.example" });
    fastAccount = await createTestAccount(app.ctx, { name: "Fast receiver", domain: "fast-in.example" });
    slow = await startReceiver(() => (hanging ? { status: 200, hang: true } : { status: 200, body: "ok" }));
    fast = await startReceiver();
    for (const [account, receiver, match] of [
      [slowAccount, slow, "in@slow-in.example"],
      [fastAccount, fast, "in@fast-in.example"],
    ] as const) {
      const res = await app.fetch("/api/v1/inbound/routes", { method: "POST", headers: bearer(account.apiKey), body: JSON.stringify({ Match: match, WebhookURL: `${receiver.url}/in` }) });
      expect(res.status).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    await slow?.close();
    await fast?.close();
  });

  async function send(to: string, count: number, from = "ann@sender.example"): Promise<void> {
    const address = getInboundAddress(app.ctx)!;
    const t = nodemailer.createTransport({ host: address.host, port: address.port, secure: false, ignoreTLS: true, pool: true, maxConnections: 4 });
    try {
      await Promise.all(Array.from({ length: count }, (_, i) => t.sendMail({ envelope: { from, to: [to] }, from, to, subject: `message ${i}`, text: `body ${i}` })));
    } finally {
      t.close();
    }
  }

  it("posts another account's mail at once, holds at most perDestination posts to the hanging one, and posts every message handed back later", async () => {
    await send("in@slow-in.example", SLOW_MESSAGES);
    // The slow receiver's posts have started: as many as its lane holds.
    await slow.waitFor(PER_DESTINATION, 10_000);

    const storedAt = Date.now();
    await send("in@fast-in.example", 3);
    await fast.waitFor(3, FAST_WITHIN_MS);
    const fastAfterMs = Date.now() - storedAt;
    // Every post of the slow receiver still hangs (none has timed out yet): no more than its lane were started.
    expect(slow.requests.length, `posts started to the hanging receiver ${fastAfterMs} ms after the other account's mail was stored`).toBe(PER_DESTINATION);

    // The messages handed back were not attempted: their attempts are still 0, and they are pending.
    const { rows } = await app.ctx.database.pool.query<{ attempts: number; n: number }>(
      "SELECT attempts, count(*)::int AS n FROM inbound_messages WHERE account_id = $1 GROUP BY attempts ORDER BY attempts",
      [slowAccount.accountId],
    );
    expect(rows).toEqual([{ attempts: 0, n: SLOW_MESSAGES }]);

    // The receiver answers again: every message is posted and ends delivered (the hung ones on their retry).
    hanging = false;
    const delivered = await until(
      async () =>
        (
          await app.ctx.database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM inbound_messages WHERE account_id = $1 AND status = 'delivered'", [
            slowAccount.accountId,
          ])
        ).rows[0]!.n,
      (n) => n === SLOW_MESSAGES,
      60_000,
    );
    expect(delivered).toBe(SLOW_MESSAGES);
    const posted = new Set(slow.requests.map((r) => (r.json as { MessageID?: string } | undefined)?.MessageID).filter(Boolean));
    expect(posted.size).toBe(SLOW_MESSAGES);
  }, 120_000);
});
