import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued, sendViaApi, waitFor } from "../support/delivery-helpers";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The stalled lane (docs/adr/0325), end to end: a relay that never answers
 * RCPT for 100 recipients of one domain and answers every other recipient of
 * that same domain at once. An ordinary message to that domain, sent 3 s
 * later, gets a transaction of its own (a probe past the stalled ones) and is
 * delivered within 5 s of its acceptance; a stuck recipient refused a slot is
 * tried again within seconds, and such a refusal spends no delivery attempt.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Attempt {
  email: string;
  outcome: string;
  reply: string;
  after_ms: number;
}

async function attemptsOf(app: TestApp, emails: string[]): Promise<Attempt[]> {
  const { rows } = await app.ctx.database.pool.query<Attempt>(
    `SELECT r.email, a.outcome, a.reply, (extract(epoch FROM a.attempted_at - m.created_at) * 1000)::int AS after_ms
       FROM delivery_attempts a JOIN message_recipients r ON r.id = a.recipient_id JOIN messages m ON m.id = a.message_id
      WHERE r.email = ANY($1) ORDER BY a.id`,
    [emails],
  );
  return rows;
}

const mail = (to: string) => ({ From: { email: "shop@example.com" }, To: [to], Subject: "stalled lane", ContentType: "Text", PlainContent: "hello" });

describe("relay delivery to a domain whose verification hangs for some of its recipients", () => {
  let relay: SmtpSink;
  let app: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    relay = await startSmtpSink({ rcptSilent: (a) => a.startsWith("stuck-") });
    app = await startTestApp({
      MAILROOM_DELIVERY: "relay",
      SMTP_RELAY_URL: `smtp://127.0.0.1:${relay.port}`,
      // As in delivery-tarpit.test.ts: shortened from 1m and 5s; a spent attempt's retry comes after the test.
      MAILROOM_RELAY_RCPT_TIMEOUT: "8s",
      MAILROOM_RELAY_STALL_AFTER: "1s",
      MAILROOM_DELIVERY_RETRY_SCHEDULE: "10m",
    });
    ({ apiKey } = await createTestAccount(app.ctx));
  });
  const stuck = Array.from({ length: 100 }, (_, n) => `stuck-${n}@example.org`);
  /** The 100 messages whose RCPT the relay never answers, sent once for both tests (either may run alone). */
  let stuckSent: Promise<void> | undefined;
  const sendStuckOnce = () =>
    (stuckSent ??= (async () => {
      for (let i = 0; i < stuck.length; i += 10) await Promise.all(stuck.slice(i, i + 10).map((to) => sendViaApi(app, apiKey, mail(to))));
      await waitFor("the tarpit to hold transactions", async () => (relay.rcptSeen.size >= 32 ? true : undefined));
    })());
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
    await relay?.stop();
  });

  // The probe line serves the newest message first (docs/adr/0325): without it, the ordinary message was
  // refused a slot at 0, 2 and 4 s while the unseen stuck recipients took the probes (6.2-6.9 s).
  it("delivers an ordinary message to the same domain within 5 s of acceptance while 100 of its recipients hang", async () => {
    await sendStuckOnce();
    await sleep(3_000);
    await sendViaApi(app, apiKey, mail("ann@example.org"));
    const [delivered] = await waitFor(
      "the ordinary message delivered",
      async () => {
        const rows = (await attemptsOf(app, ["ann@example.org"])).filter((a) => a.outcome === "delivered");
        return rows.length > 0 ? rows : undefined;
      },
      15_000,
    );
    expect(delivered!.after_ms).toBeLessThan(5_000);
    expect(relay.received.filter((m) => m.rcptTo.includes("ann@example.org"))).toHaveLength(1);

    // The stalled ones held their transactions meanwhile: those whose RCPT reached the relay first are still pending.
    const { rows } = await app.ctx.database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM message_recipients WHERE email = ANY($1) AND status = 'queued'", [stuck]);
    expect(rows[0]!.n).toBeGreaterThanOrEqual(16);
  }, 60_000);

  it("tries a stuck recipient that got no slot again within seconds, and such a refusal spends no attempt", async () => {
    await sendStuckOnce();
    const refusals = await waitFor("refusals of stuck recipients", async () => {
      const rows = (await attemptsOf(app, stuck)).filter((a) => a.reply.startsWith("Not tried: "));
      return rows.length > 0 ? rows : undefined;
    });
    const refused = refusals[0]!.email;
    // Its next attempt comes within seconds of the refusal, not after the retry schedule's 10 minutes.
    await waitFor(
      "another attempt of a refused recipient",
      async () => {
        const all = await attemptsOf(app, [refused]);
        return all.length >= 2 ? true : undefined;
      },
      10_000,
    );
    const { rows } = await app.ctx.database.pool.query<{ attempts: number; tried: number }>(
      `SELECT r.attempts, (SELECT count(*)::int FROM delivery_attempts a WHERE a.recipient_id = r.id AND a.reply NOT LIKE 'Not tried: %' AND a.reply NOT LIKE 'Not answered: %') AS tried
         FROM message_recipients r WHERE r.email = $1`,
      [refused],
    );
    // Only the attempts whose transaction ran to its end (or its phase limit) count.
    expect(rows[0]!.attempts).toBe(rows[0]!.tried);
  }, 40_000);
});
