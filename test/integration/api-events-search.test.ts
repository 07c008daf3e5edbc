import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { whereClause } from "../../lib/storage/event-rows";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

interface EventsBody {
  TotalRecords: number;
  Events: { Event: string; LoggedAt: number; Recipient: string; Message: { Headers: { MessageId: string; Subject: string } } }[];
  Errors?: { Code: number; Field?: string }[];
}

/** GET /events' extension filters Recipient and Subject (docs/contract.md §7.6, docs/adr/0051). */
describe("GET /events?Recipient=…&Subject=…", () => {
  let app: TestApp;
  let key: string;
  let accountId: string;
  let otherKey: string;
  // After the messages are accepted: a message's events are logged at or after its created_at, and a
  // Subject's events are read only from the day tables from its oldest match's on (docs/adr/0054).
  const T0 = Math.floor(Date.now() / 1000) + 60;
  const ids: Record<string, string> = {};

  const get = async (query: string, k = key) => {
    const res = await app.fetch(`/api/v1/events${query}`, { headers: bearer(k) });
    return { status: res.status, body: (await res.json()) as EventsBody };
  };
  const send = async (k: string, from: string, to: string[], subject: string) => {
    const res = await app.fetch("/api/v1/email", {
      method: "POST",
      headers: bearer(k),
      body: JSON.stringify({ From: { email: from }, To: to.map((email) => ({ email })), Subject: subject, ContentType: "HTML", HTMLContent: "<p>x</p>" }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { MessageID: string }).MessageID;
  };

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    const a = await createTestAccount(app.ctx);
    key = a.apiKey;
    accountId = a.accountId;
    const other = await createTestAccount(app.ctx, { name: "other", domain: "other.test" });
    otherKey = other.apiKey;
    const pool = app.ctx.database.pool;
    await pool.query("UPDATE accounts SET retention_days = 36500 WHERE id = ANY ($1)", [[accountId, other.accountId]]);
    ids.receipt = await send(key, "ann@example.com", ["Carol@Example.NET", "dave@example.net"], "Your receipt #1042");
    ids.reset = await send(key, "ann@example.com", ["carol@example.net"], "Reset your password");
    ids.digest = await send(key, "ann@example.com", ["dave@example.net"], "Weekly digest: 50% off_now");
    // Another account's messages to the same recipient, with the same subject.
    ids.foreign = await send(otherKey, "zed@other.test", ["carol@example.net"], "Your receipt #1042");
    // Times apart, so that newest first is checkable: receipt T0, reset T0+100, digest T0+200.
    await pool.query("UPDATE events SET logged_at = $1 WHERE message_id = $2", [T0, ids.receipt]);
    await pool.query("UPDATE events SET logged_at = $1 WHERE message_id = $2", [T0 + 100, ids.reset]);
    await pool.query("UPDATE events SET logged_at = $1 WHERE message_id = $2", [T0 + 200, ids.digest]);
    await pool.query(
      `INSERT INTO events (account_id, message_id, type, logged_at, log_level, recipient, reason)
       VALUES ($1, $2, 'delivered', $3, 'info', 'Carol@Example.NET', '250 OK'), ($1, $4, 'failed', $5, 'error', 'carol@example.net', '550 no')`,
      [accountId, ids.receipt, T0 + 10, ids.reset, T0 + 110],
    );
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("finds a recipient's events, exact and case-insensitive, newest first", async () => {
    for (const address of ["carol@example.net", "CAROL@example.NET", " Carol@Example.NET "]) {
      const { status, body } = await get(`?Recipient=${encodeURIComponent(address)}&RetrieveCount=100`);
      expect(status, address).toBe(200);
      expect(body.TotalRecords, address).toBe(4);
      expect(body.Events.map((e) => [e.Event, e.Message.Headers.MessageId])).toEqual([
        ["failed", ids.reset],
        ["accepted", ids.reset],
        ["delivered", ids.receipt],
        ["accepted", ids.receipt],
      ]);
      expect(body.Events.every((e) => e.Recipient.toLowerCase() === "carol@example.net")).toBe(true);
    }
    // Exact: no prefix, suffix or other address matches.
    for (const address of ["carol@example", "arol@example.net", "carol@example.net.", "car%", "dave@example.net,carol@example.net"]) {
      expect((await get(`?Recipient=${encodeURIComponent(address)}`)).body, address).toEqual({ TotalRecords: 0, Events: [] });
    }
  });

  it("finds messages by a Subject fragment, case-insensitive, wildcards literal", async () => {
    const receipt = await get("?Subject=RECEIPT&RetrieveCount=100");
    expect(receipt.status).toBe(200);
    expect(receipt.body.TotalRecords).toBe(3); // accepted ×2 and delivered
    expect(new Set(receipt.body.Events.map((e) => e.Message.Headers.MessageId))).toEqual(new Set([ids.receipt]));
    expect((await get(`?Subject=${encodeURIComponent("your")}&RetrieveCount=100`)).body.TotalRecords).toBe(5);
    expect((await get(`?Subject=${encodeURIComponent("50% off_")}`)).body.TotalRecords).toBe(1);
    // Paged and counted as the spec's filters are: past the last match, no events and the same TotalRecords.
    const pages = await Promise.all([0, 2, 4, 5, 9].map((from) => get(`?Subject=your&StartFrom=${from}&RetrieveCount=2`).then((r) => r.body)));
    expect(pages.map((b) => b.TotalRecords)).toEqual([5, 5, 5, 5, 5]);
    expect(pages.map((b) => b.Events.length)).toEqual([2, 2, 1, 0, 0]);
    expect(pages.slice(0, 3).flatMap((b) => b.Events.map((e) => e.LoggedAt))).toEqual([T0 + 110, T0 + 100, T0 + 10, T0, T0]);
    for (const fragment of ["50%%", "rec_ipt", "%%%", "___", "Your receipt #1043"]) {
      expect((await get(`?Subject=${encodeURIComponent(fragment)}`)).body, fragment).toEqual({ TotalRecords: 0, Events: [] });
    }
  });

  it("combines with the spec's filters and with each other", async () => {
    const q = (s: string) => get(`?${s}&RetrieveCount=100`).then((r) => r.body);
    expect((await q("Recipient=carol@example.net&Event=failed")).Events.map((e) => e.Message.Headers.MessageId)).toEqual([ids.reset]);
    expect((await q("Recipient=carol@example.net&Event=accepted-by-system")).TotalRecords).toBe(2);
    expect((await q(`Recipient=carol@example.net&StartDate=${T0 + 50}`)).TotalRecords).toBe(2);
    expect((await q(`Recipient=carol@example.net&EndDate=${T0 + 10}`)).TotalRecords).toBe(2);
    expect((await q(`Recipient=carol@example.net&MessageID=${ids.receipt}`)).TotalRecords).toBe(2);
    expect((await q(`Recipient=carol@example.net&MessageID=${ids.digest}`)).TotalRecords).toBe(0);
    expect((await q("Recipient=carol@example.net&Subject=password")).Events.map((e) => e.Event)).toEqual(["failed", "accepted"]);
    expect((await q("Recipient=dave@example.net&Subject=password")).TotalRecords).toBe(0);
    expect((await q(`Subject=your&Event=delivered`)).TotalRecords).toBe(1);
    expect((await q(`Subject=digest&MessageID=${ids.receipt}`)).TotalRecords).toBe(0);
    // Paging: StartFrom and RetrieveCount as for the spec's filters.
    const page = await get("?Recipient=carol@example.net&StartFrom=1&RetrieveCount=2");
    expect(page.body.TotalRecords).toBe(4);
    expect(page.body.Events.map((e) => e.Event)).toEqual(["accepted", "delivered"]);
  });

  it("never shows another account's messages", async () => {
    const mine = await get("?Recipient=carol@example.net&Subject=receipt&RetrieveCount=100");
    expect(mine.body.Events.map((e) => e.Message.Headers.MessageId)).not.toContain(ids.foreign);
    const theirs = await get("?Recipient=carol@example.net&RetrieveCount=100", otherKey);
    expect(theirs.body.TotalRecords).toBe(1);
    expect(theirs.body.Events.map((e) => e.Message.Headers.MessageId)).toEqual([ids.foreign]);
    expect((await get("?Subject=password", otherKey)).body).toEqual({ TotalRecords: 0, Events: [] });
    expect((await get("?Recipient=dave@example.net", otherKey)).body).toEqual({ TotalRecords: 0, Events: [] });
  });

  it.each([
    ["Subject=" + "x".repeat(1000), ["Subject"]],
    ["Subject=ab", ["Subject"]],
    ["Subject=%20%20ab%20", ["Subject"]],
    ["Recipient=" + "a".repeat(310) + "@example.net", ["Recipient"]],
    ["Recipient=%20%20", ["Recipient"]],
    ["Recipient=" + "a".repeat(400) + "&Subject=ab&Event=x", ["Recipient", "Subject", "Event"]],
  ])("%# → 422 in the envelope", async (query, fields) => {
    const { status, body } = await get(`?${query}`);
    expect(status).toBe(422);
    expect(body.Errors!.map((e) => e.Code)).toEqual(fields.map(() => 422));
    expect(body.Errors!.map((e) => e.Field).sort()).toEqual([...fields].sort());
  });

  it("leaves the spec's filters as they were: empty extension parameters are absent", async () => {
    const all = await get("?Recipient=&Subject=&RetrieveCount=100");
    expect(all.status).toBe(200);
    expect(all.body.TotalRecords).toBe(6);
  });

  it("serves a recipient's page from each day's recipient index, without a sort", async () => {
    const client = await app.ctx.database.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SET LOCAL enable_seqscan = off");
      for (const filter of [{ recipient: "Carol@example.net" }, { recipient: "carol@example.net", startDate: T0 }]) {
        const { sql, params } = whereClause(accountId, filter);
        const page = await client.query(`EXPLAIN SELECT e.id FROM events e WHERE ${sql} ORDER BY e.logged_at DESC, e.id DESC LIMIT 5`, params);
        const plan = page.rows.map((r: { "QUERY PLAN": string }) => r["QUERY PLAN"]).join("\n");
        expect(plan, JSON.stringify(filter)).toMatch(/using events_\w+_account_recipient_time /);
        expect(plan).not.toMatch(/-> {2}(Incremental )?Sort /);
        expect(plan).not.toMatch(/Seq Scan/);
      }
      // The planner takes the account's index for a handful of rows; without it, each day's trigram index answers ILIKE.
      await client.query("SET LOCAL enable_indexscan = off");
      const subject = await client.query("EXPLAIN SELECT id FROM messages WHERE subject ILIKE '%receipt%'");
      const subjectPlan = subject.rows.map((r: { "QUERY PLAN": string }) => r["QUERY PLAN"]).join("\n");
      expect(subjectPlan).toMatch(/on messages_p\d{8}_subject_trgm/);
      expect(subjectPlan).not.toMatch(/Seq Scan/);
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
  });

  it("gives the day tables made later both indexes", async () => {
    const client = await app.ctx.database.pool.connect();
    try {
      await client.query("BEGIN");
      const day = Math.floor(Date.now() / 1000 / 86400) * 86400 + 40 * 86400;
      await client.query("SELECT event_partitions_ensure($1, $2)", [day, day + 86400]);
      await client.query("SELECT day_partitions_ensure('messages', $1, $2)", [day, day + 86400]);
      const stamp = new Date(day * 1000).toISOString().slice(0, 10).replaceAll("-", "");
      const { rows } = await client.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE tablename = ANY ($1) ORDER BY 1", [
        [`events_p${stamp}`, `messages_p${stamp}`],
      ]);
      expect(rows.map((r) => r.indexname)).toEqual(expect.arrayContaining([`events_p${stamp}_account_recipient_time`, `messages_p${stamp}_subject_trgm`]));
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
  });
});
