import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MxResolver } from "../../lib/delivery/transports";
import { startWorkers, type RunningWorkers } from "../../lib/workers/start-workers";
import { createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued, sendViaApi, waitFor } from "../support/delivery-helpers";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Degrade, never stall (docs/adr/0321), end to end: a peer (a real
 * smtp-server on loopback) that accepts the connection, answers EHLO and MAIL,
 * and never answers RCPT for some recipients, while it answers others at once.
 * Ordinary mail is delivered within seconds of its acceptance while 100
 * messages are stuck there; each stuck one is deferred once, with the phase
 * in its reason, and never sent again behind the scenes.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Attempt {
  email: string;
  outcome: string;
  reply: string;
  enhanced_code: string | null;
  after_ms: number;
}

/** Every delivery attempt of these recipients, with the time from the message's acceptance. */
async function attemptsOf(app: TestApp, emails: string[]): Promise<Attempt[]> {
  const { rows } = await app.ctx.database.pool.query<Attempt>(
    `SELECT r.email, a.outcome, a.reply, a.enhanced_code, (extract(epoch FROM a.attempted_at - m.created_at) * 1000)::int AS after_ms
       FROM delivery_attempts a JOIN message_recipients r ON r.id = a.recipient_id JOIN messages m ON m.id = a.message_id
      WHERE r.email = ANY($1) ORDER BY a.id`,
    [emails],
  );
  return rows;
}

async function postAll(app: TestApp, apiKey: string, recipients: string[]): Promise<void> {
  for (let i = 0; i < recipients.length; i += 10) {
    await Promise.all(
      recipients
        .slice(i, i + 10)
        .map((to) => sendViaApi(app, apiKey, { From: { email: "shop@example.com" }, To: [to], Subject: "tarpit", ContentType: "Text", PlainContent: "hello" })),
    );
  }
}

/** What every stuck recipient must show: one deferral, for the RCPT timeout if its RCPT reached the peer, else untried. */
async function expectEachStuckDeferredOnce(app: TestApp, peer: SmtpSink, stuck: string[], rcptLimit: string): Promise<void> {
  const attempts = await waitFor("a deferral of every stuck recipient", async () => {
    const rows = await attemptsOf(app, stuck);
    return new Set(rows.map((r) => r.email)).size === stuck.length ? rows : undefined;
  }, 40_000);
  // No silent resend: a little longer, and still one attempt and at most one RCPT each.
  await sleep(1_500);
  expect((await attemptsOf(app, stuck)).length).toBe(stuck.length);
  expect(attempts.length).toBe(stuck.length);
  let timedOut = 0;
  for (const a of attempts) {
    const rcpts = peer.rcptSeen.get(a.email) ?? 0;
    expect(rcpts).toBeLessThanOrEqual(1);
    expect(a.outcome).toBe("deferred");
    if (rcpts === 1) {
      timedOut++;
      expect(a).toMatchObject({ reply: `Timeout waiting for RCPT reply (no answer after ${rcptLimit})`, enhanced_code: "4.4.2" });
      // Recorded when the RCPT limit ran out, not after a second try.
      expect(a.after_ms).toBeLessThan(20_000);
    } else {
      expect(a.reply).toMatch(/^Not tried: /);
      expect(a.enhanced_code).toBe("4.4.5");
    }
  }
  expect(timedOut).toBeGreaterThanOrEqual(16);
  const { rows } = await app.ctx.database.pool.query<{ status: string; n: number }>(
    "SELECT status, count(*)::int AS n FROM message_recipients WHERE email = ANY($1) GROUP BY status",
    [stuck],
  );
  expect(rows).toEqual([{ status: "deferred", n: stuck.length }]);
}

describe("relay delivery with a relay that never answers RCPT for some recipients", () => {
  let relay: SmtpSink;
  let app: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    relay = await startSmtpSink({ rcptSilent: (a) => a.endsWith("@tarpit.example") });
    app = await startTestApp({
      MAILROOM_DELIVERY: "relay",
      SMTP_RELAY_URL: `smtp://127.0.0.1:${relay.port}`,
      // Shortened from 1m and 5s; the retry comes after the test.
      MAILROOM_RELAY_RCPT_TIMEOUT: "8s",
      MAILROOM_RELAY_STALL_AFTER: "1s",
      MAILROOM_DELIVERY_RETRY_SCHEDULE: "10m",
    });
    ({ apiKey } = await createTestAccount(app.ctx));
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
    await relay?.stop();
  });

  it("delivers ordinary mail within 5 s of acceptance while 100 messages are stuck, and defers each stuck one once", async () => {
    const stuck = Array.from({ length: 100 }, (_, n) => `stuck-${n}@tarpit.example`);
    const ordinary = Array.from({ length: 50 }, (_, n) => `ann-${n}@example.org`);
    await postAll(app, apiKey, stuck);
    await waitFor("the tarpit to hold transactions", async () => (relay.rcptSeen.size >= 32 ? true : undefined));
    await sleep(3_000);
    await postAll(app, apiKey, ordinary);
    const delivered = await waitFor("every ordinary message delivered", async () => {
      const rows = await attemptsOf(app, ordinary);
      return rows.length === ordinary.length ? rows : undefined;
    });
    for (const a of delivered) {
      expect(a.outcome).toBe("delivered");
      expect(a.after_ms).toBeLessThan(5_000);
    }
    // The stuck ones whose RCPT reached the relay are still pending meanwhile (their limit is 8 s).
    const pending = await app.ctx.database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM message_recipients WHERE email = ANY($1) AND status = 'queued'", [
      stuck.filter((s) => relay.rcptSeen.has(s)),
    ]);
    expect(pending.rows[0]!.n).toBeGreaterThanOrEqual(16);
    await expectEachStuckDeferredOnce(app, relay, stuck, "8s");
  }, 90_000);

  it("records a message to several stuck recipients at the first timeout: the copies after it are deferred untried", async () => {
    const to = Array.from({ length: 8 }, (_, n) => `many-${n}@tarpit.example`);
    await sendViaApi(app, apiKey, { From: { email: "shop@example.com" }, To: to, Subject: "many", ContentType: "Text", PlainContent: "hello" });
    const attempts = await waitFor("the round of the message", async () => {
      const rows = await attemptsOf(app, to);
      return rows.length === to.length ? rows : undefined;
    }, 30_000);
    // Five copies go out at once and time out at the RCPT limit; the other three are not tried.
    const tried = attempts.filter((a) => relay.rcptSeen.get(a.email) === 1);
    const skipped = attempts.filter((a) => !relay.rcptSeen.has(a.email));
    expect([tried.length, skipped.length]).toEqual([5, 3]);
    for (const a of tried) expect(a.reply).toBe("Timeout waiting for RCPT reply (no answer after 8s)");
    for (const a of skipped) {
      expect(a).toMatchObject({
        outcome: "deferred",
        reply: "Not tried: an earlier copy to tarpit.example in this round timed out: Timeout waiting for RCPT reply (no answer after 8s)",
        enhanced_code: "4.4.2",
      });
      // One limit, not two.
      expect(a.after_ms).toBeLessThan(14_000);
    }
  }, 60_000);
});

describe("mx delivery with one destination that never answers RCPT", () => {
  let normal: SmtpSink;
  let tarpit: SmtpSink;
  let app: TestApp;
  let delivery: RunningWorkers;
  let apiKey: string;
  beforeAll(async () => {
    normal = await startSmtpSink();
    // Another loopback address, the same port (the transport's one MX port).
    tarpit = await startSmtpSink({ host: "127.0.0.2", port: normal.port, rcptSilent: () => true });
    const resolver: MxResolver = {
      async resolveMx(domain) {
        if (domain === "normal.example") return [{ exchange: "mail.normal.example", priority: 10 }];
        if (domain === "tarpit.example") return [{ exchange: "mail.tarpit.example", priority: 10 }];
        throw Object.assign(new Error("queryMx ENOTFOUND"), { code: "ENOTFOUND" });
      },
      async resolve4(host) {
        if (host === "mail.normal.example") return ["127.0.0.1"];
        if (host === "mail.tarpit.example") return ["127.0.0.2"];
        throw Object.assign(new Error("queryA ENOTFOUND"), { code: "ENOTFOUND" });
      },
    };
    app = await startTestApp({
      MAILROOM_WORKERS: "off",
      MAILROOM_DELIVERY: "mx",
      MAILROOM_ALLOW_PRIVATE_MX: "true",
      // 16 delivery jobs at once: the tarpit alone could hold them all.
      MAILROOM_WORKER_CONCURRENCY: "16",
      MAILROOM_MX_RCPT_TIMEOUT: "8s",
      MAILROOM_MX_STALL_AFTER: "1s",
      MAILROOM_DELIVERY_RETRY_SCHEDULE: "10m",
    });
    ({ apiKey } = await createTestAccount(app.ctx));
    delivery = await startWorkers(app.ctx, { workers: true, inbound: false, notifications: false, maintenance: false, mx: { resolver, port: normal.port } });
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await delivery?.stop();
    await app?.stop();
    await tarpit?.stop();
    await normal?.stop();
  });

  it("delivers to the destination that answers within 5 s while the tarpit holds its transactions, and defers each stuck one once", async () => {
    const stuck = Array.from({ length: 60 }, (_, n) => `stuck-${n}@tarpit.example`);
    const ordinary = Array.from({ length: 30 }, (_, n) => `bob-${n}@normal.example`);
    await postAll(app, apiKey, stuck);
    await waitFor("the tarpit to hold transactions", async () => (tarpit.rcptSeen.size >= 16 ? true : undefined));
    await sleep(2_000);
    await postAll(app, apiKey, ordinary);
    const delivered = await waitFor("every message to the normal destination delivered", async () => {
      const rows = await attemptsOf(app, ordinary);
      return rows.length === ordinary.length ? rows : undefined;
    });
    for (const a of delivered) {
      expect(a.outcome).toBe("delivered");
      expect(a.after_ms).toBeLessThan(5_000);
    }
    expect(normal.received.length).toBe(ordinary.length);
    await expectEachStuckDeferredOnce(app, tarpit, stuck, "8s");
  }, 90_000);
});
