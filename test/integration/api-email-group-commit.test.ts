import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setAccountLimits } from "../../lib/domain/accounts/accounts";
import { addSuppression } from "../../lib/domain/accounts/suppressions";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { DELIVER_ENTRIES_SQL } from "../../lib/storage/deliver-entries-sql";

/**
 * Acceptances that arrive together share transactions (group commit,
 * docs/adr/0102). Whatever transaction a request lands in, it gets its own
 * answer: the plan limits, suppression and durable acceptance of docs/contract.md
 * hold per request, as if each had committed alone.
 */
describe("POST /email under concurrency (group commit)", () => {
  let app: TestApp;
  const send = (key: string, to: string[], extra: Record<string, unknown> = {}) =>
    app.fetch("/api/v1/email", {
      method: "POST",
      headers: bearer(key),
      body: JSON.stringify({ From: { email: "ann@example.com" }, To: to, Subject: "Hi", ContentType: "Text", PlainContent: "Hi", ...extra }),
    });
  const count = async (sql: string, values: unknown[]) => (await app.ctx.database.pool.query<{ n: number }>(sql, values)).rows[0]!.n;

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("answers each of many concurrent requests of several accounts as if it had committed alone", async () => {
    const open = await createTestAccount(app.ctx, { name: "open" });
    const limited = await createTestAccount(app.ctx, { name: "limited", plan: "trial" });
    // A day window: no minute or hour boundary can split this burst.
    await setAccountLimits(app.ctx.database, limited.accountId, { perMinute: 1000, perHour: 1000, perDay: 3 });
    app.ctx.apiKeyAuth.results.clear(); // as the dashboard does after changing an account: this process forgets its cached keys
    const suppressing = await createTestAccount(app.ctx, { name: "suppressing" });
    await addSuppression(app.ctx.database, { accountId: suppressing.accountId, email: "gone@example.net", reason: "unsubscribe" });

    const kinds = Array.from({ length: 60 }, (_, i) => (["open", "limited", "suppressed", "partly"] as const)[i % 4]!);
    const responses = await Promise.all(
      kinds.map((kind, i) => {
        if (kind === "open") return send(open.apiKey, [`o${i}@example.net`, `o${i}@example.org`]);
        if (kind === "limited") return send(limited.apiKey, [`l${i}@example.net`]);
        if (kind === "suppressed") return send(suppressing.apiKey, ["gone@example.net"]);
        return send(suppressing.apiKey, ["gone@example.net", `p${i}@example.net`]);
      }),
    );
    const answers = await Promise.all(responses.map(async (r) => ({ status: r.status, body: (await r.json()) as { MessageID?: string; Errors?: { Code: number }[] } })));
    const of = (kind: string) => answers.filter((_, i) => kinds[i] === kind);

    expect(of("open").every((a) => a.status === 200 && a.body.MessageID)).toBe(true);
    expect(of("partly").every((a) => a.status === 200 && a.body.MessageID)).toBe(true);
    expect(of("suppressed").every((a) => a.status === 422 && a.body.Errors?.[0]?.Code === 14)).toBe(true);
    expect(of("limited").filter((a) => a.status === 200)).toHaveLength(3);
    expect(of("limited").filter((a) => a.status === 429 && a.body.Errors?.[0]?.Code === 17)).toHaveLength(12);

    // Exactly the accepted messages are stored, each with its recipients, events and jobs.
    const accepted = answers.filter((a) => a.status === 200).map((a) => a.body.MessageID!);
    expect(accepted).toHaveLength(15 + 15 + 3);
    for (const account of [open, limited, suppressing]) {
      const ids = answers.filter((a, i) => a.status === 200 && (kinds[i] === "open" ? open : kinds[i] === "limited" ? limited : suppressing) === account).map((a) => a.body.MessageID);
      const { rows } = await app.ctx.database.pool.query<{ id: string }>("SELECT id FROM messages WHERE account_id = $1", [account.accountId]);
      expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    }
    expect(await count("SELECT count(*)::int AS n FROM limit_counters WHERE api_key_id = $1 AND window_kind = 'day' AND used = 3", [limited.apiKeyId])).toBe(1);
    // open: two recipients in two domains → two accepted events, two deliver entries (one per domain);
    // partly: a rejected and an accepted event, one entry.
    for (const id of accepted) {
      const events = (await app.ctx.database.pool.query<{ type: string }>("SELECT type FROM events WHERE message_id = $1 ORDER BY type", [id])).rows.map((r) => r.type);
      const entries = await count(`SELECT count(*)::int AS n FROM pgboss.job j, ${DELIVER_ENTRIES_SQL} AS e WHERE j.name = 'deliver' AND e->>'messageId' = $1`, [id]);
      const recipients = await count("SELECT count(*)::int AS n FROM message_recipients WHERE message_id = $1", [id]);
      const kind = kinds[answers.findIndex((a) => a.body.MessageID === id)];
      if (kind === "open") expect({ events, entries, recipients }).toEqual({ events: ["accepted", "accepted"], entries: 2, recipients: 2 });
      else if (kind === "partly") expect({ events, entries, recipients }).toEqual({ events: ["accepted", "rejected"], entries: 1, recipients: 2 });
      else expect({ events, entries, recipients }).toEqual({ events: ["accepted"], entries: 1, recipients: 1 });
    }
    // The messages of one transaction share their deliver jobs (docs/adr/0024): fewer jobs than messages.
    const jobs = await count(
      `SELECT count(DISTINCT j.id)::int AS n FROM pgboss.job j, ${DELIVER_ENTRIES_SQL} AS e WHERE j.name = 'deliver' AND e->>'messageId' = ANY($1::text[])`,
      [accepted],
    );
    expect(jobs).toBeGreaterThan(0);
    expect(jobs).toBeLessThan(accepted.length);
    // Nothing of the refused requests was stored.
    expect(await count("SELECT count(*)::int AS n FROM events WHERE recipient = 'gone@example.net' AND message_id NOT IN (SELECT id FROM messages)", [])).toBe(0);

    // The burst shared transactions: messages of one transaction have the same created_at (now() is the transaction's start).
    const transactions = await count(
      "SELECT count(DISTINCT created_at)::int AS n FROM messages WHERE account_id = ANY($1::uuid[])",
      [[open.accountId, limited.accountId, suppressing.accountId]],
    );
    expect(transactions).toBeLessThan(accepted.length);
  });

  it("a message the database cannot store fails alone; the others of its transaction are accepted", async () => {
    const a = await createTestAccount(app.ctx, { name: "isolation" });
    // Validation refuses text PostgreSQL cannot store; a trigger stands in for
    // any storage-level refusal that validation does not foresee.
    await app.ctx.database.pool.query(`
      CREATE OR REPLACE FUNCTION test_refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.subject = 'poison' THEN RAISE EXCEPTION 'poisoned row' USING ERRCODE = '22023'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_refuse_poison BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION test_refuse_poison();`);
    try {
      const subjects = Array.from({ length: 24 }, (_, i) => (i % 8 === 5 ? "poison" : `fine ${i}`));
      const responses = await Promise.all(subjects.map((s, i) => send(a.apiKey, [`i${i}@example.net`], { Subject: s })));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s, i) => subjects[i] === "poison" && s === 500)).toHaveLength(3);
      expect(statuses.filter((s, i) => subjects[i] !== "poison" && s === 200)).toHaveLength(21);
      expect(await count("SELECT count(*)::int AS n FROM messages WHERE account_id = $1", [a.accountId])).toBe(21);
    } finally {
      await app.ctx.database.pool.query("DROP TRIGGER test_refuse_poison ON messages; DROP FUNCTION test_refuse_poison()");
    }
  });
});
