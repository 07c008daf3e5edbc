import http from "node:http";
import { SMTPServer } from "smtp-server";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createAccount } from "../../lib/domain/accounts/accounts";
import { openDatabase, type Database } from "../../lib/storage/database";
import { bearer, createTestAccount } from "../support/fixtures";
import { freePort, startAppProcess, waitFor } from "../support/processes";
import { startTestApp, type TestApp } from "../support/test-app";
import { createTestDatabase } from "../support/test-database";

/**
 * Faults, each ending in "nothing accepted is lost and the counts
 * add up" (accepted recipients = final events).
 */

function message(i: number, to = `r${i}@example.org`) {
  return JSON.stringify({
    From: { name: "Faults", email: "faults@example.com" },
    To: [{ email: to }],
    Subject: `fault ${i}`,
    ContentType: "Text",
    PlainContent: `message ${i}`,
  });
}

async function finalCounts(pool: Database["pool"], accountId: string) {
  const { rows } = await pool.query<{ accepted: number; finals: number; final_recipients: number }>(
    `SELECT count(*) FILTER (WHERE type = 'accepted')::int AS accepted,
            count(*) FILTER (WHERE type IN ('delivered','failed','rejected'))::int AS finals,
            count(DISTINCT (message_id, recipient)) FILTER (WHERE type IN ('delivered','failed','rejected'))::int AS final_recipients
       FROM events WHERE account_id = $1`,
    [accountId],
  );
  return rows[0]!;
}

/** A relay that takes `delayMs` per message and records what it accepted. */
async function startSlowRelay(port: number, delayMs: number) {
  const received: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      stream.resume();
      stream.on("end", () => {
        setTimeout(() => {
          received.push(...session.envelope.rcptTo.map((r) => r.address));
          callback();
        }, delayMs);
      });
    },
  });
  // A client killed mid-session (the SIGKILL test) resets its connection: not an error of the relay.
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  return { received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("faults", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
  });
  afterAll(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
  });

  it("SIGKILL of the whole app with messages in flight: a restart delivers every one", async () => {
    const dbUrl = await createTestDatabase();
    const database = openDatabase(dbUrl, { max: 2 });
    cleanups.push(() => database.close());
    const relayPort = await freePort();
    const relay = await startSlowRelay(relayPort, 100);
    cleanups.push(relay.close);
    const env = {
      DATABASE_URL: dbUrl,
      MAILROOM_WORKERS: "inline",
      MAILROOM_DELIVERY: "relay",
      SMTP_RELAY_URL: `smtp://127.0.0.1:${relayPort}`,
      MAILROOM_DELIVERY_JOB_EXPIRE: "3s",
      MAILROOM_DELIVERY_RETRY_SCHEDULE: "1s",
      MAILROOM_WORKER_CONCURRENCY: "2",
    };
    const account = await createAccount(database, { name: "Kill", plan: "unlimited", domain: "example.com", verified: true });
    let app = await startAppProcess(env);
    cleanups.push(() => app.kill("SIGKILL"));

    const total = 40;
    for (let i = 0; i < total; i++) {
      const res = await fetch(`${app.url}/api/v1/email`, { method: "POST", headers: bearer(account.apiKey), body: message(i) });
      expect(res.status).toBe(200);
    }
    await waitFor("some deliveries in flight", async () => relay.received.length >= 5, 30_000);
    await app.kill("SIGKILL");
    const beforeRestart = await finalCounts(database.pool, account.accountId);
    expect(beforeRestart.final_recipients).toBeLessThan(total);

    app = await startAppProcess(env);
    await waitFor("every recipient to reach a final event after the restart", async () => (await finalCounts(database.pool, account.accountId)).final_recipients === total, 120_000, 500);
    const after = await finalCounts(database.pool, account.accountId);
    expect(after.accepted).toBe(total);
    expect(after.finals).toBe(total); // one final event per recipient, never two
    expect(new Set(relay.received).size).toBe(total); // the relay may see a redelivery, never a gap
  }, 240_000);

  it("a relay refusing connections for a while: messages wait and go out when it comes back", async () => {
    const relayPort = await freePort();
    const app: TestApp = await startTestApp({
      MAILROOM_DELIVERY: "relay",
      SMTP_RELAY_URL: `smtp://127.0.0.1:${relayPort}`,
      MAILROOM_DELIVERY_RETRY_SCHEDULE: "1s,1s,1s,1s,1s,1s,1s,1s,1s,1s",
    });
    cleanups.push(() => app.stop());
    const account = await createTestAccount(app.ctx);
    const total = 10;
    for (let i = 0; i < total; i++) {
      const res = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(account.apiKey), body: message(i) });
      expect(res.status).toBe(200);
    }
    const pool = app.ctx.database.pool;
    await waitFor("failed attempts while the relay is down", async () => {
      const { rows } = await pool.query<{ n: number }>("SELECT count(DISTINCT recipient_id)::int AS n FROM delivery_attempts WHERE account_id = $1", [account.accountId]);
      return rows[0]!.n === total;
    }, 60_000, 250);
    expect((await finalCounts(pool, account.accountId)).finals).toBe(0); // deferred, not failed

    const relay = await startSlowRelay(relayPort, 0);
    cleanups.push(relay.close);
    await waitFor("all delivered once the relay is back", async () => (await finalCounts(pool, account.accountId)).final_recipients === total, 60_000, 250);
    const counts = await finalCounts(pool, account.accountId);
    expect(counts.finals).toBe(total);
    const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND type = 'delivered'", [account.accountId]);
    expect(rows[0]!.n).toBe(total);
  }, 120_000);

  it("a webhook receiver down for several retry steps, then up, gets the notification", async () => {
    const port = await freePort();
    const app: TestApp = await startTestApp({ MAILROOM_WEBHOOK_RETRY_SCHEDULE: "1s,1s,1s,1s,1s,1s,1s" });
    cleanups.push(() => app.stop());
    const account = await createTestAccount(app.ctx);
    const created = await app.fetch("/api/v1/webhooks", {
      method: "POST",
      headers: bearer(account.apiKey),
      body: JSON.stringify({ Event: "delivery", WebhookURL: `http://127.0.0.1:${port}/hook` }),
    });
    expect(created.status).toBe(200);
    const sent = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(account.apiKey), body: message(1) });
    const { MessageID } = (await sent.json()) as { MessageID: string };

    const pool = app.ctx.database.pool;
    await waitFor("three failed attempts", async () => {
      const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_attempts WHERE status_code = 0");
      return rows[0]!.n >= 3;
    }, 30_000, 200);

    const got: { MessageID: string }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = "";
      req.on("data", (d: Buffer) => (body += d.toString()));
      req.on("end", () => {
        got.push((JSON.parse(body) as { EventData: { MessageID: string } }).EventData);
        res.writeHead(200).end("thanks");
      });
    });
    await new Promise<void>((r) => receiver.listen(port, "127.0.0.1", () => r()));
    cleanups.push(() => new Promise((r) => receiver.close(() => r(undefined))));

    await waitFor("the notification after the receiver came back", async () => got.length > 0, 30_000, 200);
    expect(got[0]!.MessageID).toBe(MessageID);
    type Listed = { Webhooks: { LastResponseCode: string; LastResponseTryCounter: string; LastResponseBody: string }[] };
    // The record is updated once the attempt's answer is read, just after the receiver saw the POST.
    const hook = await waitFor("the record to show the successful attempt", async () => {
      const list = (await (await app.fetch("/api/v1/webhooks", { headers: bearer(account.apiKey) })).json()) as Listed;
      return list.Webhooks[0]!.LastResponseCode === "200" ? list.Webhooks[0]! : undefined;
    }, 10_000, 100);
    expect(hook.LastResponseBody).toBe("thanks");
    expect(Number(hook.LastResponseTryCounter)).toBeGreaterThanOrEqual(4);
  }, 120_000);
});

