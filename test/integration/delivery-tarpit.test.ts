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
 * messages are stuck there; each stuck one is deferred with the phase (or
 * why it was not tried) in its reason, and never sent again behind the scenes.
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

/**
 * What every stuck recipient must show: deferred, never sent again behind the scenes. A copy whose RCPT
 * reached the peer timed out at the RCPT limit (an attempt spent) or, run as a probe past the stalled ones,
 * was given up at the stall time ("Not answered: …", 4.4.2); one that got no slot is "Not tried: …"
 * (4.4.5). Neither of the two spends an attempt; they are tried again within seconds (docs/adr/0325).
 */
async function expectEachStuckDeferred(app: TestApp, peer: SmtpSink, stuck: string[], rcptLimit: string): Promise<void> {
  const timeout = `Timeout waiting for RCPT reply (no answer after ${rcptLimit})`;
  const attempts = await waitFor("an attempt of every stuck recipient, and the RCPT limit of those held", async () => {
    const rows = await attemptsOf(app, stuck);
    return new Set(rows.map((r) => r.email)).size === stuck.length && rows.filter((r) => r.reply === timeout).length >= 16 ? rows : undefined;
  }, 40_000);
  const seen = new Map(peer.rcptSeen);
  const recorded = await attemptsOf(app, stuck);
  for (const a of attempts) {
    expect(a.outcome).toBe("deferred");
    if (a.reply === timeout) {
      expect(a.enhanced_code).toBe("4.4.2");
      // Recorded when the RCPT limit ran out, not after a second try.
      expect(a.after_ms).toBeLessThan(20_000);
    } else if (a.reply.startsWith("Not answered: ")) expect(a.enhanced_code).toBe("4.4.2");
    else {
      expect(a.reply).toMatch(/^Not tried: /);
      expect(a.enhanced_code).toBe("4.4.5");
    }
  }
  // No silent resend: every RCPT the peer saw is a recorded attempt, or the one transaction of that recipient running now.
  for (const email of stuck) {
    const tried = recorded.filter((a) => a.email === email && (a.reply === timeout || a.reply.startsWith("Not answered: "))).length;
    expect(seen.get(email) ?? 0).toBeLessThanOrEqual(tried + 1);
  }
  const { rows } = await app.ctx.database.pool.query<{ status: string; spent: number }>(
    "SELECT status, max(attempts)::int AS spent FROM message_recipients WHERE email = ANY($1) GROUP BY status",
    [stuck],
  );
  // At most the RCPT limit's one attempt each so far.
  expect(rows).toEqual([{ status: "deferred", spent: 1 }]);
}

describe("relay delivery with a relay that never answers RCPT for some recipients", () => {
  let relay: SmtpSink;
  let app: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    relay = await startSmtpSink({ rcptSilent: (a) => a.endsWith("@tarpit.example") || a.endsWith("@tarpit-many.example") });
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

  it("delivers ordinary mail within 5 s of acceptance while 100 messages are stuck, and defers each stuck one, never sent behind the scenes", async () => {
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
    await expectEachStuckDeferred(app, relay, stuck, "8s");
  }, 90_000);

  it("records a message to several stuck recipients at the first timeout: the copies after it are deferred untried", async () => {
        // A domain of its own: the first test's stuck recipients are still being tried (within seconds) at tarpit.example.
    const to = Array.from({ length: 8 }, (_, n) => `many-${n}@tarpit-many.example`);
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
        reply: "Not tried: an earlier copy to tarpit-many.example in this round timed out: Timeout waiting for RCPT reply (no answer after 8s)",
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

  it("delivers to the destination that answers within 5 s while the tarpit holds its transactions, and defers each stuck one, never sent behind the scenes", async () => {
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
    await expectEachStuckDeferred(app, tarpit, stuck, "8s");
  }, 90_000);
});
