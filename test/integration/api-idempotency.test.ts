import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setAccountLimits } from "../../lib/domain/accounts/accounts";
import { addSuppression } from "../../lib/domain/accounts/suppressions";
import { runMaintenance } from "../support/run-now";
import { createAccount } from "../../lib/domain/accounts/accounts";
import { openDatabase, type Database } from "../../lib/storage/database";
import { migrate } from "../../lib/storage/migrate";
import { bearer, createTestAccount } from "../support/fixtures";
import { startAppProcess, type Proc } from "../support/processes";
import { startTestApp, type TestApp } from "../support/test-app";
import { createTestDatabase } from "../support/test-database";
import { deliverJobHasMessage } from "../support/delivery-helpers";

/**
 * POST /email with an `Idempotency-Key` (docs/adr/0110). A
 * retry with the key gets the first answer again and sends nothing; the key
 * holds under concurrency, across app processes and across a crash.
 */

interface Answer {
  status: number;
  text: string;
  replayed: string | null;
  headers: Headers;
}

const emailBody = (subject = "Hi", to = "r@example.org") =>
  JSON.stringify({ From: { email: "ann@example.com" }, To: [{ email: to }], Subject: subject, ContentType: "Text", PlainContent: "Hello" });

async function post(baseUrl: string, apiKey: string, body: string, idempotencyKey?: string): Promise<Answer> {
  const headers = { ...bearer(apiKey), ...(idempotencyKey !== undefined && { "Idempotency-Key": idempotencyKey }) };
  const res = await fetch(`${baseUrl}/api/v1/email`, { method: "POST", headers, body });
  return { status: res.status, text: await res.text(), replayed: res.headers.get("idempotent-replayed"), headers: res.headers };
}

const count = async (database: Database, sql: string, values: unknown[]) => (await database.pool.query<{ n: number }>(sql, values)).rows[0]!.n;
const messagesOf = (database: Database, accountId: string) => count(database, "SELECT count(*)::int AS n FROM messages WHERE account_id = $1", [accountId]);

describe("POST /email with an Idempotency-Key (one process)", () => {
  let app: TestApp;
  let db: Database;
  const send = (apiKey: string, body: string, key?: string) => post(app.url, apiKey, body, key);

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    db = app.ctx.database;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("replays the first answer byte for byte, with Idempotent-Replayed, and sends once", async () => {
    const account = await createTestAccount(app.ctx, { plan: "trial" });
    const key = randomUUID();
    const first = await send(account.apiKey, emailBody(), key);
    expect(first.status).toBe(200);
    expect(first.replayed).toBeNull();
    const again = await send(account.apiKey, emailBody(), key);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.replayed).toBe("true");
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    // A replay consumed nothing: the limits headers still say one email used.
    expect(again.headers.get("x-ratelimit-remaining")).toBe(first.headers.get("x-ratelimit-remaining"));

    const { MessageID } = JSON.parse(first.text) as { MessageID: string };
    expect(await messagesOf(db, account.accountId)).toBe(1);
    expect(await count(db, "SELECT count(*)::int AS n FROM events WHERE message_id = $1 AND type = 'accepted'", [MessageID])).toBe(1);
    expect(await count(db, `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'deliver' AND ${deliverJobHasMessage("$1")}`, [MessageID])).toBe(1);
  });

  it("changes nothing for requests without the header", async () => {
    const account = await createTestAccount(app.ctx);
    const a = await send(account.apiKey, emailBody());
    const b = await send(account.apiKey, emailBody());
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.replayed).toBeNull();
    expect(b.replayed).toBeNull();
    expect(a.text).not.toBe(b.text);
    expect(await messagesOf(db, account.accountId)).toBe(2);
    expect(await count(db, "SELECT count(*)::int AS n FROM idempotency_keys WHERE api_key_id = $1", [account.apiKeyId])).toBe(0);
  });

  it("refuses the key with another body (422 naming the header) and keeps the first answer", async () => {
    const account = await createTestAccount(app.ctx);
    const key = randomUUID();
    const first = await send(account.apiKey, emailBody("one"), key);
    expect(first.status).toBe(200);
    // One byte differs: another request.
    const other = await send(account.apiKey, emailBody("one").replace("{", "{ "), key);
    expect(other.status).toBe(422);
    expect(other.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(other.text)).toEqual({ Errors: [{ Code: 422, Message: "Invalid request parameters", Field: "Idempotency-Key" }] });
    expect(other.replayed).toBeNull();
    expect((await send(account.apiKey, emailBody("one"), key)).text).toBe(first.text);
    expect(await messagesOf(db, account.accountId)).toBe(1);
  });

  it("is documented on POST /email in the OpenAPI document", async () => {
    const doc = (await (await app.fetch("/api/v1/openapi.json")).json()) as {
      paths: { "/email": { post: { parameters: { name: string; in: string }[]; responses: Record<string, { headers?: Record<string, unknown> }> } } };
    };
    const op = doc.paths["/email"].post;
    expect(op.parameters).toContainEqual(expect.objectContaining({ name: "Idempotency-Key", in: "header", required: false }));
    expect(Object.keys(op.responses["200"]!.headers!)).toContain("Idempotent-Replayed");
    expect(op.responses["409"]).toEqual({ $ref: "#/components/responses/Conflict" });
  });

  it("keys are per API key", async () => {
    const account = await createTestAccount(app.ctx);
    const other = await createTestAccount(app.ctx);
    const key = randomUUID();
    const a = await send(account.apiKey, emailBody(), key);
    const b = await send(other.apiKey, emailBody(), key);
    expect([a.status, b.status, b.replayed]).toEqual([200, 200, null]);
    expect(a.text).not.toBe(b.text);
  });

  it("sends one message for concurrent requests with one key; each gets its answer", async () => {
    const account = await createTestAccount(app.ctx);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 12 }, () => send(account.apiKey, emailBody("burst"), key)));
    expect(answers.every((a) => a.status === 200 && a.text === answers[0]!.text)).toBe(true);
    expect(answers.filter((a) => a.replayed === null)).toHaveLength(1);
    expect(await messagesOf(db, account.accountId)).toBe(1);
    expect(await count(db, "SELECT count(*)::int AS n FROM events WHERE account_id = $1", [account.accountId])).toBe(1);

    // Two bodies racing for one key: one message, the other body's requests refused.
    const mixedKey = randomUUID();
    const mixed = await Promise.all(Array.from({ length: 12 }, (_, i) => send(account.apiKey, emailBody(i % 2 ? "odd" : "even"), mixedKey)));
    const winner = mixed.find((a) => a.status === 200)!;
    expect(mixed.every((a) => (a.status === 200 && a.text === winner.text) || a.status === 422)).toBe(true);
    expect(mixed.filter((a) => a.status === 200)).toHaveLength(6);
    expect(await messagesOf(db, account.accountId)).toBe(2);
  });

  it("refuses a key of 257 characters, a tab or a non-ASCII character (422 naming the header) and takes 256", async () => {
    const account = await createTestAccount(app.ctx);
    for (const bad of ["k".repeat(257), "a\tb", "cl\u00e9"]) {
      const refused = await send(account.apiKey, emailBody(), bad);
      expect(refused.status, JSON.stringify(bad)).toBe(422);
      expect(refused.headers.get("content-type")).toBe("application/json");
      expect(JSON.parse(refused.text)).toEqual({ Errors: [{ Code: 422, Message: "Invalid request parameters", Field: "Idempotency-Key" }] });
    }
    expect(await messagesOf(db, account.accountId)).toBe(0);
    const longest = await send(account.apiKey, emailBody(), "k".repeat(256));
    expect([longest.status, longest.replayed]).toEqual([200, null]);
    expect((await send(account.apiKey, emailBody(), "k".repeat(256))).replayed).toBe("true");
  });

  it("leaves the key free when the request fails validation, so the corrected request sends", async () => {
    const account = await createTestAccount(app.ctx);
    const key = randomUUID();
    const invalid = JSON.stringify({ From: { email: "ann@example.com" }, To: [{ email: "r@example.org" }], ContentType: "Text", PlainContent: "x" });
    const refused = await send(account.apiKey, invalid, key);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toEqual({ Errors: [{ Code: 8, Message: "Missing Subject", Field: "Subject" }] });
    expect((await send(account.apiKey, "{not json", key)).status).toBe(422);
    expect(await count(db, "SELECT count(*)::int AS n FROM idempotency_keys WHERE api_key_id = $1", [account.apiKeyId])).toBe(0);
    const sent = await send(account.apiKey, emailBody(), key);
    expect([sent.status, sent.replayed]).toEqual([200, null]);
    expect((await send(account.apiKey, emailBody(), key)).replayed).toBe("true");
  });

  it("replays a refusal decided after validation: From domain not verified (403), every recipient suppressed (422 code 14)", async () => {
    const unverified = await createTestAccount(app.ctx, { verified: false });
    const key = randomUUID();
    const first = await send(unverified.apiKey, emailBody(), key);
    expect(first.status).toBe(403);
    const again = await send(unverified.apiKey, emailBody(), key);
    expect([again.status, again.text, again.replayed]).toEqual([403, first.text, "true"]);

    const account = await createTestAccount(app.ctx);
    await addSuppression(db, { accountId: account.accountId, email: "gone@example.org", reason: "unsubscribe" });
    const suppressedKey = randomUUID();
    const suppressed = await send(account.apiKey, emailBody("s", "gone@example.org"), suppressedKey);
    expect(JSON.parse(suppressed.text)).toEqual({ Errors: [{ Code: 14, Message: "Recipient email is suppressed" }] });
    const replay = await send(account.apiKey, emailBody("s", "gone@example.org"), suppressedKey);
    expect([replay.status, replay.text, replay.replayed]).toEqual([422, suppressed.text, "true"]);
    expect(await messagesOf(db, account.accountId)).toBe(0);
  });

  it("releases the key of a request refused by a limit: the retry after the window is sent", async () => {
    const account = await createTestAccount(app.ctx, { plan: "trial" });
    await setAccountLimits(db, account.accountId, { perMinute: 1000, perHour: 1000, perDay: 1 });
    app.ctx.apiKeyAuth.results.clear(); // as the dashboard does after changing an account: this process forgets its cached keys
    expect((await send(account.apiKey, emailBody("first"))).status).toBe(200);
    const key = randomUUID();
    const refused = await send(account.apiKey, emailBody(), key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).not.toBeNull();
    // Not replayed: the same request is refused afresh.
    expect((await send(account.apiKey, emailBody(), key)).replayed).toBeNull();
    await setAccountLimits(db, account.accountId, { perMinute: 1000, perHour: 1000, perDay: 10 });
    app.ctx.apiKeyAuth.results.clear();
    const sent = await send(account.apiKey, emailBody(), key);
    expect([sent.status, sent.replayed]).toEqual([200, null]);
    expect(await messagesOf(db, account.accountId)).toBe(2);
  });

  it("releases the key when the acceptance fails (a 5xx): nothing was stored, the retry sends", async () => {
    const account = await createTestAccount(app.ctx);
    const key = randomUUID();
    // A fault inside the acceptance transaction, after the key was claimed in it.
    await db.pool.query(`CREATE FUNCTION idem_fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$`);
    await db.pool.query(`CREATE TRIGGER idem_fault BEFORE INSERT ON messages FOR EACH ROW WHEN (NEW.subject = 'fault') EXECUTE FUNCTION idem_fault()`);
    try {
      const failed = await send(account.apiKey, emailBody("fault"), key);
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect(await count(db, "SELECT count(*)::int AS n FROM idempotency_keys WHERE api_key_id = $1", [account.apiKeyId])).toBe(0);
    } finally {
      await db.pool.query("DROP TRIGGER idem_fault ON messages; DROP FUNCTION idem_fault()");
    }
    const sent = await send(account.apiKey, emailBody("fault"), key);
    expect([sent.status, sent.replayed]).toEqual([200, null]);
    expect(await messagesOf(db, account.accountId)).toBe(1);
  });

  it("keeps a key for 24 hours; once maintenance purges it the key is free again", async () => {
    const account = await createTestAccount(app.ctx);
    const key = randomUUID();
    const kept = randomUUID();
    const first = await send(account.apiKey, emailBody(), key);
    await send(account.apiKey, emailBody("kept"), kept);
    await db.pool.query("UPDATE idempotency_keys SET created_at = now() - interval '23 hours 59 minutes' WHERE api_key_id = $1 AND key = $2", [account.apiKeyId, key]);
    await runMaintenance(app.ctx);
    expect((await send(account.apiKey, emailBody(), key)).replayed).toBe("true");

    await db.pool.query("UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 minute' WHERE api_key_id = $1 AND key = $2", [account.apiKeyId, key]);
    const report = await runMaintenance(app.ctx);
    expect(report.idempotencyKeys).toBeGreaterThanOrEqual(1);
    const after = await send(account.apiKey, emailBody(), key);
    expect([after.status, after.replayed]).toEqual([200, null]);
    expect(after.text).not.toBe(first.text);
    expect((await send(account.apiKey, emailBody("kept"), kept)).replayed).toBe("true");
    expect(await messagesOf(db, account.accountId)).toBe(3);
  });
});

describe("Idempotency-Key across two app processes on one PostgreSQL", () => {
  let dbUrl: string;
  let database: Database;
  const apps: (Proc & { url: string })[] = [];

  beforeAll(async () => {
    dbUrl = await createTestDatabase();
    database = openDatabase(dbUrl, { max: 4 });
    await migrate(database.pool);
    const env = { DATABASE_URL: dbUrl, MAILROOM_DB_POOL_SIZE: "10" };
    apps.push(await startAppProcess(env), await startAppProcess(env));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(apps.map((p) => p.kill("SIGTERM")));
    await database?.close();
  });

  it("sends one message per key when both processes get the same requests at once", async () => {
    const account = await createAccount(database, { name: "Two", plan: "unlimited", domain: "example.com", verified: true });
    const keys = Array.from({ length: 20 }, () => randomUUID());
    const answers = await Promise.all(
      keys.flatMap((key, i) => [0, 1, 0, 1].map((p) => post(apps[p]!.url, account.apiKey, emailBody(`m${i}`), key).then((a) => ({ key, ...a })))),
    );
    expect(answers.filter((a) => a.status !== 200).map((a) => a.status + a.text)).toEqual([]);
    for (const key of keys) {
      const mine = answers.filter((a) => a.key === key);
      expect(new Set(mine.map((a) => a.text)).size).toBe(1);
      expect(mine.filter((a) => a.replayed === null)).toHaveLength(1);
    }
    expect(await messagesOf(database, account.accountId)).toBe(keys.length);
  }, 60_000);

  it("a retry after the serving process was killed mid-burst replays what committed and sends the rest once", async () => {
    const account = await createAccount(database, { name: "Crash", plan: "unlimited", domain: "example.com", verified: true });
    const victim = await startAppProcess({ DATABASE_URL: dbUrl, MAILROOM_DB_POOL_SIZE: "10" });
    expect((await post(victim.url, account.apiKey, emailBody("warm-up"))).status).toBe(200);
    const keys = Array.from({ length: 80 }, () => randomUUID());
    // 16 clients in turn; the process is killed at the 10th answer, while other batches are
    // being accepted: some committed and answered, some committed unanswered, some never committed.
    let killed: Promise<void> | undefined;
    let answered = 0;
    const before: (Answer | undefined)[] = [];
    let next = 0;
    const client = async () => {
      for (let i = next++; i < keys.length && !killed; i = next++) {
        before[i] = await post(victim.url, account.apiKey, emailBody(`c${i}`), keys[i]).catch(() => undefined);
        if (before[i] && ++answered === 10) killed = victim.kill("SIGKILL");
      }
    };
    await Promise.all(Array.from({ length: 16 }, client));
    await killed;

    const retries = await Promise.all(keys.map((key, i) => post(apps[i % 2]!.url, account.apiKey, emailBody(`c${i}`), key)));
    expect(retries.filter((a) => a.status !== 200).map((a) => a.status + a.text)).toEqual([]);
    for (const [i, first] of before.entries()) {
      if (first?.status === 200) expect(retries[i]!.text).toBe(first.text);
    }
    // Every key has exactly one message, and it is the one the retry names.
    const { rows } = await database.pool.query<{ id: string; subject: string }>("SELECT id, subject FROM messages WHERE account_id = $1", [account.accountId]);
    expect(rows.filter((r) => r.subject !== "warm-up")).toHaveLength(keys.length);
    for (const [i, retry] of retries.entries()) {
      expect(rows.find((r) => r.subject === `c${i}`)?.id).toBe((JSON.parse(retry.text) as { MessageID: string }).MessageID);
    }
  }, 120_000);
});
