import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rollupEventCounts } from "../../lib/domain/events/event-counts";
import { ensureDayPartitions } from "../../lib/storage/day-partitions";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

interface Row {
  Value: string;
  Counts: Record<string, number>;
  Rates: Record<string, number | null>;
  PreviousCounts: Record<string, number>;
}
interface Body {
  StartDate: number;
  Totals: Record<string, number>;
  Breakdown?: { By: string; SummarisedUntil: number; PreviousStartDate: number; PreviousEndDate: number; Rows: Row[] };
  Errors?: { Field: string }[];
}

/**
 * GET /stats?By= (extension, docs/adr/0517): counts per tag, recipient domain, provider and
 * sender domain from the hourly breakdowns (migration 1014), against the previous period;
 * another account's messages never counted; a late event undoes them and the next roll-up
 * counts it once; without By the answer has no Breakdown.
 */
describe("GET /stats?By= (breakdowns)", () => {
  let app: TestApp;
  const DAY = 86_400;
  const now = Math.floor(Date.now() / 1000);
  const T = now - 2 * DAY; // this period's messages
  const P = now - 5 * DAY; // the previous period's
  const range = `StartDate=${now - 3 * DAY}&EndDate=${now}&Interval=day`;
  let a: { accountId: string; apiKey: string };
  let b: { accountId: string; apiKey: string };

  const message = async (accountId: string, at: number, from: string, tags: string[]) => {
    const id = randomUUID();
    await app.ctx.database.pool.query(
      `INSERT INTO messages (id, account_id, from_email, from_domain, subject, headers, content, tags, created_at)
       VALUES ($1, $2, $3, $4, 's', '{}', '{}', $5, to_timestamp($6))`,
      [id, accountId, `news@${from}`, from, tags, at],
    );
    return id;
  };
  const events = (accountId: string, messageId: string, at: number, rows: [type: string, recipient: string][]) =>
    app.ctx.database.pool.query(
      `INSERT INTO events (account_id, message_id, type, logged_at, recipient)
       SELECT $1, $2, t, $3, r FROM unnest($4::text[], $5::text[]) AS x(t, r)`,
      [accountId, messageId, at, rows.map((r) => r[0]), rows.map((r) => r[1])],
    );
  const get = async (key: string, query: string) => {
    const res = await app.fetch(`/api/v1/stats?${query}`, { headers: bearer(key) });
    return { status: res.status, body: (await res.json()) as Body };
  };
  const byValue = (body: Body) => Object.fromEntries(body.Breakdown!.Rows.map((r) => [r.Value, r]));

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    a = await createTestAccount(app.ctx, { name: "breakdowns", domain: "a.test" });
    b = await createTestAccount(app.ctx, { name: "neighbour", domain: "b.test" });
    await ensureDayPartitions(app.ctx.database, "messages", now - 7 * DAY, now);
    const receipt = await message(a.accountId, T - 60, "a.test", ["receipts"]);
    await events(a.accountId, receipt, T, [
      ["accepted", "Ann@Gmail.com"],
      ["accepted", "bob@yahoo.fr"],
      ["delivered", "Ann@Gmail.com"],
      ["failed", "bob@yahoo.fr"],
      ["opened", "Ann@Gmail.com"],
    ]);
    const digest = await message(a.accountId, T - 60, "News.A.test", ["digest", "weekly"]);
    await events(a.accountId, digest, T + 3600, [
      ["accepted", "cy@outlook.com"],
      ["accepted", "di@corp.example"],
      ["delivered", "cy@outlook.com"],
      ["delivered", "di@corp.example"],
      ["complained", "cy@outlook.com"],
    ]);
    const before = await message(a.accountId, P - 60, "a.test", ["receipts"]);
    await events(a.accountId, before, P, [
      ["accepted", "ann@gmail.com"],
      ["delivered", "ann@gmail.com"],
    ]);
    // The neighbour's receipts, in the same hours.
    const theirs = await message(b.accountId, T - 60, "b.test", ["receipts"]);
    await events(b.accountId, theirs, T, [
      ["accepted", "zed@gmail.com"],
      ["accepted", "zoe@gmail.com"],
    ]);
    for (const acc of [a, b]) await rollupEventCounts(app.ctx.database, acc.accountId);
  });
  afterAll(async () => {
    await app?.ctx.rollups.settled();
    await app?.stop();
  });

  it("by tag: counts, rates and the previous period of each tag, the largest first", async () => {
    const { status, body } = await get(a.apiKey, `${range}&By=tag`);
    expect(status).toBe(200);
    expect(body.Breakdown!.By).toBe("tag");
    // The previous period: as long as the range from its first bucket, just before it.
    expect(body.Breakdown!.PreviousEndDate).toBe(body.StartDate - 1);
    expect(body.Breakdown!.PreviousStartDate).toBe(body.StartDate - (now - body.StartDate + 1));
    expect(body.Breakdown!.Rows.map((r) => r.Value)).toEqual(["receipts", "digest", "weekly"]); // ties broken by the previous period
    const rows = byValue(body);
    expect(rows.receipts!.Counts).toMatchObject({ accepted: 2, delivered: 1, failed: 1, opened: 1 });
    expect(rows.receipts!.Rates).toEqual({ delivered: 0.5, bounced: 0.5, complained: 0, opened: 1, clicked: 0 });
    expect(rows.receipts!.PreviousCounts).toMatchObject({ accepted: 1, delivered: 1 });
    expect(rows.digest!.Rates.complained).toBe(0.5);
    expect(rows.weekly!.Counts.accepted).toBe(2);
  });

  it("by recipient domain, provider and sender domain (domains lower-cased)", async () => {
    const domains = byValue((await get(a.apiKey, `${range}&By=recipientDomain`)).body);
    expect(Object.keys(domains).sort()).toEqual(["corp.example", "gmail.com", "outlook.com", "yahoo.fr"]);
    expect(domains["gmail.com"]!.PreviousCounts.accepted).toBe(1);
    const providers = byValue((await get(a.apiKey, `${range}&By=provider`)).body);
    expect(Object.fromEntries(Object.entries(providers).map(([k, r]) => [k, r.Counts.accepted]))).toEqual({ Gmail: 1, Yahoo: 1, Outlook: 1, Other: 1 });
    expect(providers.Yahoo!.Rates.bounced).toBe(1);
    const senders = byValue((await get(a.apiKey, `${range}&By=senderDomain`)).body);
    expect(Object.fromEntries(Object.entries(senders).map(([k, r]) => [k, r.Counts.accepted]))).toEqual({ "a.test": 2, "news.a.test": 2 });
  });

  it("counts only the asking account's messages", async () => {
    const theirs = byValue((await get(b.apiKey, `${range}&By=tag`)).body);
    expect(Object.keys(theirs)).toEqual(["receipts"]);
    expect(theirs.receipts!.Counts.accepted).toBe(2);
    expect(theirs.receipts!.PreviousCounts.accepted).toBe(0);
  });

  it("without By, the answer has no Breakdown; a By it does not know is a 422 on By", async () => {
    const plain = await get(a.apiKey, range);
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty("Breakdown");
    expect(plain.body.Totals.accepted).toBe(4);
    const bad = await get(a.apiKey, `${range}&By=country`);
    expect(bad.status).toBe(422);
    expect(bad.body.Errors!.map((e) => e.Field)).toEqual(["By"]);
  });

  it("a late event undoes the breakdowns from its hour; the next roll-up counts every event once", async () => {
    await app.ctx.rollups.settled(); // the roll-ups the reads above started
    const late = await message(a.accountId, T - 60, "a.test", ["receipts"]);
    await events(a.accountId, late, T + 10, [["accepted", "eve@gmail.com"]]);
    const undone = byValue((await get(a.apiKey, `${range}&By=tag`)).body);
    // Its hour and after are summarised again by the next roll-up; until then they count nowhere here.
    expect(undone.receipts!.Counts.accepted).toBe(0);
    expect(undone.receipts!.PreviousCounts.accepted).toBe(1);
    await app.ctx.rollups.settled();
    await rollupEventCounts(app.ctx.database, a.accountId);
    const again = byValue((await get(a.apiKey, `${range}&By=tag`)).body);
    expect(again.receipts!.Counts.accepted).toBe(3);
    expect(again.digest!.Counts.accepted).toBe(2);
    expect(again.receipts!.PreviousCounts.accepted).toBe(1);
  });
});
