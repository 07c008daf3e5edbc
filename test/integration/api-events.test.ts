import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { whereClause } from "../../lib/storage/event-rows";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

interface EventsBody {
  TotalRecords: number;
  Events: { Event: string; LoggedAt: number; EventID: string; Recipient: string; Message: { Headers: { MessageId: string } } }[];
}

describe("GET /events", () => {
  let app: TestApp;
  let key: string;
  let accountId: string;
  let otherKey: string;
  const ids: string[] = [];
  const T0 = 1_700_000_000;

  const get = async (query: string, k = key) => {
    const res = await app.fetch(`/api/v1/events${query}`, { headers: bearer(k) });
    return { status: res.status, body: (await res.json()) as EventsBody & { Errors?: { Code: number; Field?: string }[] } };
  };

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    const a = await createTestAccount(app.ctx);
    // Events pinned years back stay inside this account's retention (reads apply it, docs/adr/0031).
    await app.ctx.database.pool.query("UPDATE accounts SET retention_days = 36500 WHERE id = $1", [a.accountId]);
    key = a.apiKey;
    accountId = a.accountId;
    otherKey = (await createTestAccount(app.ctx, { name: "other", domain: "other.test" })).apiKey;
    for (let i = 0; i < 3; i++) {
      const res = await app.fetch("/api/v1/email", {
        method: "POST",
        headers: bearer(key),
        body: JSON.stringify({
          From: { name: "Ann", email: "ann@example.com" },
          To: [{ name: "Bob", email: `bob${i}@example.net` }],
          ReplyTo: [{ email: "reply@example.com" }],
          Subject: `Message ${i}`,
          ContentType: "HTML",
          HTMLContent: "<p>x</p>",
          Tags: [`t${i}`],
        }),
      });
      ids.push(((await res.json()) as { MessageID: string }).MessageID);
    }
    // Pin the accepted events' times and add later lifecycle events: 9 events in all.
    const pool = app.ctx.database.pool;
    await pool.query("UPDATE events SET logged_at = $1 WHERE account_id = $2", [T0, accountId]);
    const add = (messageIdx: number, type: string, at: number, extra: Record<string, unknown> = {}) =>
      pool.query(
        `INSERT INTO events (account_id, message_id, type, logged_at, log_level, recipient, reason, ip, geo_city, geo_region, geo_country, url)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          accountId,
          ids[messageIdx],
          type,
          at,
          type === "failed" ? "error" : "info",
          `bob${messageIdx}@example.net`,
          (extra.reason as string) ?? "",
          extra.ip ?? null,
          extra.city ?? null,
          extra.region ?? null,
          extra.country ?? null,
          extra.url ?? null,
        ],
      );
    await add(0, "delivered", T0 + 10, { reason: "250 2.0.0 OK" });
    await add(1, "delivered", T0 + 10, { reason: "250 2.0.0 OK" });
    await add(0, "opened", T0 + 20, { ip: "203.0.113.9", city: "Berlin", region: "BE", country: "DE" });
    await add(0, "clicked", T0 + 30, { ip: "203.0.113.9", url: "https://example.org/a" });
    await add(2, "failed", T0 + 40, { reason: "550 5.1.1 no such user" });
    await add(1, "unsubscribed", T0 + 50, {});
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("returns the 5 newest by default with the total count", async () => {
    const { status, body } = await get("");
    expect(status).toBe(200);
    expect(body.TotalRecords).toBe(9);
    expect(body.Events.map((e) => e.Event)).toEqual(["unsubscribed", "failed", "clicked", "opened", "delivered"]);
  });

  it("orders newest first, then by insertion order descending, stable across pages", async () => {
    const all = (await get("?RetrieveCount=100")).body.Events;
    expect(all).toHaveLength(9);
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [all[i - 1]!, all[i]!];
      expect(a.LoggedAt > b.LoggedAt || (a.LoggedAt === b.LoggedAt && Number(a.EventID) > Number(b.EventID))).toBe(true);
    }
    const pages: string[] = [];
    for (let from = 0; from < 9; from += 2) pages.push(...(await get(`?StartFrom=${from}&RetrieveCount=2`)).body.Events.map((e) => e.EventID));
    expect(pages).toEqual(all.map((e) => e.EventID));
    const past = await get("?StartFrom=9");
    expect(past.body).toEqual({ TotalRecords: 9, Events: [] });
  });

  it("renders the spec's record, with Ip/Geolocation on engagement and Url on clicks", async () => {
    const accepted = (await get(`?Event=accepted&MessageID=${ids[0]}`)).body.Events[0]!;
    expect(accepted).toEqual({
      Event: "accepted",
      LoggedAt: T0,
      LogLevel: "info",
      Message: {
        Headers: {
          MessageId: ids[0],
          From: [["Ann", "ann@example.com"]],
          ReplyTo: [["", "reply@example.com"]],
          To: [["Bob", "bob0@example.net"]],
          Cc: [],
          Bcc: [],
          Subject: "Message 0",
        },
        Size: expect.any(Number),
        Transport: "api",
      },
      Recipient: "bob0@example.net",
      Reason: "",
      Tags: ["t0"],
      EventID: expect.stringMatching(/^\d+$/),
    });
    expect(Object.keys(accepted)).toEqual(["Event", "LoggedAt", "LogLevel", "Message", "Recipient", "Reason", "Tags", "EventID"]);
    const opened = (await get("?Event=opened")).body.Events[0]!;
    expect(opened).toMatchObject({ Ip: "203.0.113.9", Geolocation: { City: "Berlin", Region: "BE", Country: "DE" } });
    expect(opened).not.toHaveProperty("Url");
    const clicked = (await get("?Event=clicked")).body.Events[0]!;
    expect(clicked).toMatchObject({ Ip: "203.0.113.9", Geolocation: { City: "", Region: "", Country: "" }, Url: "https://example.org/a" });
    const failed = (await get("?Event=failed")).body.Events[0]!;
    expect(failed).toMatchObject({ LogLevel: "error", Reason: "550 5.1.1 no such user" });
    expect(failed).not.toHaveProperty("Ip");
    expect(failed).not.toHaveProperty("Geolocation");
  });

  it("filters by every event type, with accepted-by-system as accepted", async () => {
    const expected: Record<string, number> = { accepted: 3, delivered: 2, opened: 1, clicked: 1, failed: 1, unsubscribed: 1, rejected: 0, complained: 0 };
    for (const [type, n] of Object.entries(expected)) {
      const { body } = await get(`?Event=${type}&RetrieveCount=100`);
      expect(body.TotalRecords, type).toBe(n);
      expect(body.Events.every((e) => e.Event === type)).toBe(true);
    }
    const alias = await get("?Event=accepted-by-system");
    expect(alias.body.TotalRecords).toBe(3);
    expect(alias.body.Events.every((e) => e.Event === "accepted")).toBe(true);
  });

  it("filters by MessageID (and its alias MessageId), any case", async () => {
    const { body } = await get(`?MessageID=${ids[0]}&RetrieveCount=100`);
    expect(body.TotalRecords).toBe(4);
    expect(body.Events.every((e) => e.Message.Headers.MessageId === ids[0])).toBe(true);
    expect((await get(`?MessageId=${ids[0]}`)).body.TotalRecords).toBe(4);
    expect((await get(`?MessageID=${ids[0]!.toUpperCase()}`)).body.TotalRecords).toBe(4);
  });

  it("gives TotalRecords 0 for unknown or non-UUID ids, never an error", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "abc", "'; DROP TABLE events; --", "%00", " "]) {
      const { status, body } = await get(`?MessageID=${encodeURIComponent(id)}`);
      expect(status, id).toBe(200);
      expect(body).toEqual({ TotalRecords: 0, Events: [] });
    }
  });

  it("bounds dates inclusively", async () => {
    expect((await get(`?StartDate=${T0 + 10}&EndDate=${T0 + 30}&RetrieveCount=100`)).body.TotalRecords).toBe(4);
    expect((await get(`?StartDate=${T0 + 50}`)).body.TotalRecords).toBe(1);
    expect((await get(`?EndDate=${T0}`)).body.TotalRecords).toBe(3);
    expect((await get(`?StartDate=${T0 + 20}&EndDate=${T0 + 20}`)).body.TotalRecords).toBe(1);
    expect((await get(`?StartDate=${T0 + 10}&EndDate=${T0 + 40}&Event=delivered&MessageID=${ids[1]}`)).body.TotalRecords).toBe(1);
  });

  it("treats empty parameters as absent", async () => {
    const { status, body } = await get("?Event=&MessageID=&StartDate=&RetrieveCount=");
    expect(status).toBe(200);
    expect(body.TotalRecords).toBe(9);
    expect(body.Events).toHaveLength(5);
  });

  it("accepts RetrieveCount 1 and 100", async () => {
    expect((await get("?RetrieveCount=1")).body.Events).toHaveLength(1);
    expect((await get("?RetrieveCount=100")).body.Events).toHaveLength(9);
  });

  it.each([
    ["RetrieveCount=0", ["RetrieveCount"]],
    ["RetrieveCount=101", ["RetrieveCount"]],
    ["RetrieveCount=abc", ["RetrieveCount"]],
    ["RetrieveCount=1.5", ["RetrieveCount"]],
    ["StartFrom=-1", ["StartFrom"]],
    ["StartFrom=1e3", ["StartFrom"]],
    ["StartDate=-5", ["StartDate"]],
    ["StartDate=yesterday", ["StartDate"]],
    ["EndDate=99999999999999999999999", ["EndDate"]],
    ["StartDate=20&EndDate=10", ["StartDate"]],
    ["Event=bounced", ["Event"]],
    ["Event=ACCEPTED", ["Event"]],
    ["RetrieveCount=0&Event=x&StartFrom=-1", ["Event", "StartFrom", "RetrieveCount"]],
  ])("%s → 422 with Field", async (query, fields) => {
    const { status, body } = await get(`?${query}`);
    expect(status).toBe(422);
    expect(body.Errors!.map((e) => e.Code)).toEqual(fields.map(() => 422));
    expect(body.Errors!.map((e) => e.Field).sort()).toEqual([...fields].sort());
  });

  it("is scoped to the key's account", async () => {
    const { body } = await get("?RetrieveCount=100", otherKey);
    expect(body).toEqual({ TotalRecords: 0, Events: [] });
    expect((await get(`?MessageID=${ids[0]}`, otherKey)).body.TotalRecords).toBe(0);
  });

  it("serves every filter shape from an index of each day's partition (0001_core.sql, 0952)", async () => {
    const client = await app.ctx.database.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SET LOCAL enable_seqscan = off");
      const shapes: [Parameters<typeof whereClause>[1], string][] = [
        [{}, "events_account_time"],
        [{ startDate: T0, endDate: T0 + 100 }, "events_account_time"],
        [{ type: "delivered" }, "events_account_type_time"],
        [{ type: "delivered", startDate: T0 }, "events_account_type_time"],
        [{ messageId: ids[0] }, "events_account_message_time"],
      ];
      for (const [filter, index] of shapes) {
        const { sql, params } = whereClause(accountId, filter);
        const page = await client.query(`EXPLAIN SELECT e.id FROM events e WHERE ${sql} ORDER BY e.logged_at DESC, e.id DESC LIMIT 5`, params);
        const plan = page.rows.map((r: { "QUERY PLAN": string }) => r["QUERY PLAN"]).join("\n");
        // Each partition's copy of the index is named <partition>_account_time and so on.
        expect(plan, JSON.stringify(filter)).toMatch(new RegExp(`using events_\\w+_${index.slice("events_".length)} `));
        expect(plan).not.toMatch(/-> {2}(Incremental )?Sort /);
        expect(plan).not.toMatch(/Seq Scan/);
      }
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
  });
});
