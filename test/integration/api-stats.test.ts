import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

describe("GET /stats (extension)", () => {
  let app: TestApp;
  let key: string;
  let otherKey: string;
  const DAY = 86_400;
  const D0 = 20_000 * DAY; // a UTC midnight

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    const a = await createTestAccount(app.ctx);
    // Events pinned years back stay inside this account's retention (reads apply it, docs/adr/0031).
    await app.ctx.database.pool.query("UPDATE accounts SET retention_days = 36500 WHERE id = $1", [a.accountId]);
    key = a.apiKey;
    otherKey = (await createTestAccount(app.ctx, { name: "other", domain: "other.test" })).apiKey;
    const messageId = "11111111-1111-4111-8111-111111111111";
    const rows: [string, number][] = [
      ["accepted", D0 + 10],
      ["accepted", D0 + 3600 + 5],
      ["delivered", D0 + 3600 + 6],
      ["opened", D0 + 7200],
      ["accepted", D0 + DAY + 1],
      ["failed", D0 + 2 * DAY + 100],
      ["accepted", D0 - 1], // before the range
    ];
    for (const [type, at] of rows) {
      await app.ctx.database.pool.query("INSERT INTO events (account_id, message_id, type, logged_at, recipient) VALUES ($1, $2, $3, $4, 'x@example.net')", [
        a.accountId,
        messageId,
        type,
        at,
      ]);
    }
  });
  afterAll(async () => {
    await app?.stop();
  });

  const get = async (query: string, k = key) => {
    const res = await app.fetch(`/api/v1/stats?${query}`, { headers: bearer(k) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { Buckets: { Start: number; Counts: Record<string, number> }[]; Totals: Record<string, number> } };
  };

  it("counts per type per day, every bucket present", async () => {
    const { status, body } = await get(`StartDate=${D0}&EndDate=${D0 + 3 * DAY - 1}&Interval=day`);
    expect(status).toBe(200);
    expect(body.Interval).toBe("day");
    expect(body.StartDate).toBe(D0);
    expect(body.Buckets.map((b) => b.Start)).toEqual([D0, D0 + DAY, D0 + 2 * DAY]);
    expect(body.Buckets[0]!.Counts).toEqual({ accepted: 2, rejected: 0, failed: 0, delivered: 1, opened: 1, clicked: 0, unsubscribed: 0, complained: 0 });
    expect(body.Buckets[1]!.Counts.accepted).toBe(1);
    expect(body.Buckets[2]!.Counts.failed).toBe(1);
    expect(body.Totals).toEqual({ accepted: 3, rejected: 0, failed: 1, delivered: 1, opened: 1, clicked: 0, unsubscribed: 0, complained: 0 });
  });

  it("counts per hour, rounding StartDate down to its bucket", async () => {
    const { body } = await get(`StartDate=${D0 + 59}&EndDate=${D0 + 3 * 3600 - 1}&Interval=hour`);
    expect(body.StartDate).toBe(D0);
    expect(body.Buckets.map((b) => [b.Start - D0, b.Counts.accepted, b.Counts.delivered, b.Counts.opened])).toEqual([
      [0, 1, 0, 0],
      [3600, 1, 1, 0],
      [7200, 0, 0, 1],
    ]);
  });

  it("defaults to daily buckets and agrees with GET /events counts", async () => {
    const { body } = await get(`StartDate=${D0}&EndDate=${D0 + DAY - 1}`);
    expect(body.Interval).toBe("day");
    const res = await app.fetch(`/api/v1/events?Event=accepted&StartDate=${D0}&EndDate=${D0 + DAY - 1}&RetrieveCount=1`, { headers: bearer(key) });
    expect(((await res.json()) as { TotalRecords: number }).TotalRecords).toBe(body.Totals.accepted);
  });

  it("is scoped to the account", async () => {
    const { body } = await get(`StartDate=${D0}&EndDate=${D0 + 3 * DAY}`, otherKey);
    expect(Object.values(body.Totals).every((n) => n === 0)).toBe(true);
  });

  it.each([
    ["", ["StartDate", "EndDate"]],
    ["StartDate=10", ["EndDate"]],
    ["StartDate=x&EndDate=10", ["StartDate"]],
    ["StartDate=20&EndDate=10", ["StartDate"]],
    ["StartDate=0&EndDate=10&Interval=week", ["Interval"]],
    [`StartDate=0&EndDate=${2000 * 86_400}&Interval=day`, ["EndDate"]],
    [`StartDate=0&EndDate=${1001 * 3600}&Interval=hour`, ["EndDate"]],
  ])("%s → 422", async (query, fields) => {
    const { status, body } = await get(query);
    expect(status).toBe(422);
    expect((body.Errors as { Field: string }[]).map((e) => e.Field).sort()).toEqual([...fields].sort());
  });
});
