import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, setAccountLimits } from "../../lib/domain/accounts/accounts";
import { openDatabase, type Database } from "../../lib/storage/database";
import { migrate } from "../../lib/storage/migrate";
import { bearer } from "../support/fixtures";
import { startAppProcess, startWorkerProcess, waitFor, type Proc } from "../support/processes";
import { createTestDatabase } from "../support/test-database";

/**
 * Scale-out: two app processes and two `mailroom worker` processes on one
 * PostgreSQL. Limits hold across processes, every accepted recipient reaches
 * a final event, and webhook notifications arrive at least once, duplicates
 * only with the same webhook-id.
 */
describe("scale-out: 2 app processes + 2 workers on one database", () => {
  let dbUrl: string;
  let database: Database;
  const apps: (Proc & { url: string })[] = [];
  const workers: Proc[] = [];
  let receiver: http.Server;
  let receiverUrl: string;
  const received: { id: string; body: { EventData: { MessageID: string; To: string } } }[] = [];

  beforeAll(async () => {
    dbUrl = await createTestDatabase();
    database = openDatabase(dbUrl, { max: 4 });
    await migrate(database.pool);
    receiver = http.createServer((req, res) => {
      let body = "";
      req.on("data", (d: Buffer) => (body += d.toString()));
      req.on("end", () => {
        received.push({ id: String(req.headers["webhook-id"]), body: JSON.parse(body) });
        res.writeHead(200).end("ok");
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    const common = {
      DATABASE_URL: dbUrl,
      MAILROOM_ALLOW_PRIVATE_WEBHOOKS: "true",
      MAILROOM_WEBHOOK_RETRY_SCHEDULE: "1s,1s,1s",
      MAILROOM_DB_POOL_SIZE: "10",
    };
    apps.push(await startAppProcess(common), await startAppProcess(common));
    workers.push(startWorkerProcess(common), startWorkerProcess(common));
  }, 180_000);

  afterAll(async () => {
    await Promise.all([...apps, ...workers].map((p) => p.kill("SIGTERM")));
    receiver?.close();
    await database?.close();
  });

  it("admits exactly the daily limit across both app processes", async () => {
    const account = await createAccount(database, { name: "Limited", plan: "trial", domain: "example.com", verified: true });
    await setAccountLimits(database, account.accountId, { perMinute: 1000, perHour: 1000, perDay: 40 });
    const body = JSON.stringify({
      From: { email: "a@example.com" },
      To: [{ email: "r@example.org" }],
      Subject: "limit",
      ContentType: "Text",
      PlainContent: "x",
    });
    // 16 clients at once across both processes (a burst that races for the same counters).
    const results: { status: number; body: { MessageID?: string; Errors?: { Code: number }[] } }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = next++; i < 100; i = next++) {
          const r = await fetch(`${apps[i % 2]!.url}/api/v1/email`, { method: "POST", headers: bearer(account.apiKey), body });
          results.push({ status: r.status, body: (await r.json()) as { MessageID?: string; Errors?: { Code: number }[] } });
        }
      }),
    );
    const accepted = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(accepted).toHaveLength(40);
    expect(refused).toHaveLength(60);
    expect(refused.every((r) => r.body.Errors?.[0]?.Code === 17)).toBe(true);
  });

  it("delivers every accepted recipient and notifies each delivery at least once", async () => {
    const account = await createAccount(database, { name: "Load", plan: "unlimited", domain: "example.com", verified: true });
    const hook = await fetch(`${apps[0]!.url}/api/v1/webhooks`, {
      method: "POST",
      headers: bearer(account.apiKey),
      body: JSON.stringify({ Event: "delivery", WebhookURL: receiverUrl }),
    });
    expect(hook.status).toBe(200);

    const total = 200;
    // 16 clients in parallel, each sending its share in turn (a client fleet, not one burst).
    let next = 0;
    const ids: string[] = [];
    const client = async () => {
      for (let i = next++; i < total; i = next++) ids.push(await sendOne(i));
    };
    const sendOne = async (i: number): Promise<string> => {
      const res = await fetch(`${apps[i % 2]!.url}/api/v1/email`, {
        method: "POST",
        headers: bearer(account.apiKey),
        body: JSON.stringify({
          From: { name: "Load", email: "load@example.com" },
          To: [{ name: "R", email: `r${i}@example.org` }],
          Subject: `message ${i}`,
          ContentType: "HTML",
          HTMLContent: `<p>message ${i}</p>`,
        }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { MessageID: string }).MessageID;
    };
    await Promise.all(Array.from({ length: 16 }, client));
    expect(new Set(ids).size).toBe(total);

    await waitFor(
      "every recipient to reach a final event",
      async () => {
        const { rows } = await database.pool.query<{ n: number }>(
          "SELECT count(DISTINCT message_id)::int AS n FROM events WHERE account_id = $1 AND type IN ('delivered','failed','rejected')",
          [account.accountId],
        );
        return rows[0]!.n === total;
      },
      120_000,
      500,
    );
    const { rows: finals } = await database.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND type = 'delivered'",
      [account.accountId],
    );
    // At-least-once delivery may log a duplicate only after a crash; none here.
    expect(finals[0]!.n).toBe(total);

    await waitFor("a notification for every delivery", async () => new Set(received.map((r) => r.body.EventData.MessageID)).size === total, 60_000, 250);
    // Duplicates, if any, are retries of one notification: same webhook-id, same message.
    const byId = new Map<string, string>();
    for (const r of received) {
      const seen = byId.get(r.id);
      if (seen) expect(seen).toBe(r.body.EventData.MessageID);
      byId.set(r.id, r.body.EventData.MessageID);
    }
    expect(byId.size).toBe(total);
  }, 240_000);
});

