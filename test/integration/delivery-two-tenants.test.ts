import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bounceDestination } from "../../lib/delivery/destinations/queue-control";
import { bearer, createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued, waitFor } from "../support/delivery-helpers";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Accounts take turns at one destination (docs/adr/0325): tenant A has 5,000 messages queued for a
 * relay whose shaping rule takes 50 a second (100 s of A's mail), and tenant B's one message,
 * accepted while A's backlog drains, is delivered within 5 s of its acceptance. Both send as a
 * client of the contract does: a 429 (the delivery backlog's pushback, docs/adr/0322) is sent
 * again after its Retry-After. Then the operator
 * bounces what is left of A's queue (`mailroom queue bounce relay --account A`): each of A's
 * recipients ends with one final event.
 */

const A_MESSAGES = 5_000;
const BATCH = 500;
const mail = (to: string) => ({ From: { email: "shop@example.com" }, To: [{ email: to }], Subject: "fair share", ContentType: "Text", PlainContent: "hello" });

describe("two tenants, one destination that takes 50 a second", () => {
  let relay: SmtpSink;
  let app: TestApp;
  let a: { apiKey: string; accountId: string };
  let b: { apiKey: string; accountId: string };
  beforeAll(async () => {
    relay = await startSmtpSink();
    const dir = mkdtempSync(path.join(tmpdir(), "mailroom-fair-"));
    const shapingFile = path.join(dir, "shaping.json");
    writeFileSync(shapingFile, JSON.stringify({ relay: { messagesPerSecond: 50 } }));
    app = await startTestApp({ MAILROOM_DELIVERY: "relay", SMTP_RELAY_URL: `smtp://127.0.0.1:${relay.port}`, MAILROOM_SHAPING_FILE: shapingFile });
    a = await createTestAccount(app.ctx, { name: "tenant A" });
    b = await createTestAccount(app.ctx, { name: "tenant B" });
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
    await relay?.stop();
  });

  it("delivers tenant B's message within 5 s while tenant A's 5,000 wait their turn", async () => {
    for (let i = 0; i < A_MESSAGES; i += BATCH) {
      const items = Array.from({ length: BATCH }, (_, n) => mail(`a${i + n}@example.org`));
      expect((await postHonouringRetryAfter("/api/v1/email/batch", a.apiKey, items)).status).toBe(200);
    }
    // A's mail is flowing at the destination's rate, and most of it still waits.
    await waitFor("tenant A's mail flowing", async () => (relay.received.length >= 100 ? true : undefined), 30_000);
    const res = await postHonouringRetryAfter("/api/v1/email", b.apiKey, mail("b@example.net"));
    expect(res.status).toBe(200);
    const id = ((await res.json()) as { MessageID: string }).MessageID;
    const delivered = await waitFor(
      "tenant B's message delivered",
      async () => {
        const { rows } = await app.ctx.database.pool.query<{ after_ms: number }>(
          `SELECT (extract(epoch FROM a.attempted_at - m.created_at) * 1000)::int AS after_ms
             FROM delivery_attempts a JOIN messages m ON m.id = a.message_id WHERE a.message_id = $1 AND a.outcome = 'delivered'`,
          [id],
        );
        return rows[0];
      },
      30_000,
    );
    expect(delivered.after_ms).toBeLessThan(5_000);
    // B was not served after A's backlog: most of A's mail still waited when B's was delivered.
    expect(await pendingOf(a.accountId)).toBeGreaterThan(A_MESSAGES / 2);

    // The rest of A's queue is bounced by the operator: every recipient of A has one final event.
    const bounced = await bounceDestination(app.ctx, "relay", "tenant A's backlog bounced by the test", a.accountId);
    expect(bounced).toBeGreaterThan(0);
    await waitFor("every recipient of A final", async () => ((await pendingOf(a.accountId)) === 0 ? true : undefined), 60_000);
    const { rows } = await app.ctx.database.pool.query<{ finals: number; recipients: number }>(
      `SELECT (SELECT count(*)::int FROM events e JOIN messages m ON m.id = e.message_id
                WHERE m.account_id = $1 AND e.type IN ('delivered', 'failed', 'rejected')) AS finals,
              (SELECT count(*)::int FROM message_recipients r JOIN messages m ON m.id = r.message_id WHERE m.account_id = $1) AS recipients`,
      [a.accountId],
    );
    expect(rows[0]).toEqual({ finals: A_MESSAGES, recipients: A_MESSAGES });
  }, 180_000);

  async function postHonouringRetryAfter(url: string, apiKey: string, body: unknown): Promise<Response> {
    for (;;) {
      const res = await app.fetch(url, { method: "POST", headers: bearer(apiKey), body: JSON.stringify(body) });
      if (res.status !== 429) return res;
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, Number(res.headers.get("retry-after") ?? 1) * 1000));
    }
  }

  async function pendingOf(accountId: string): Promise<number> {
    const { rows } = await app.ctx.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM message_recipients r JOIN messages m ON m.id = r.message_id
        WHERE m.account_id = $1 AND r.status IN ('queued', 'deferred')`,
      [accountId],
    );
    return rows[0]!.n;
  }
});
