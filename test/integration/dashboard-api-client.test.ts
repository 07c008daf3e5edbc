import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertSyntheticEvents } from "../../e2e/support/synthetic-events";
import { ApiRequestError, createApiClient, type ApiClient } from "../../lib/api-client/client";
import { iterateEvents } from "../../lib/api-client/iterate-events";
import { countStatsViaEvents, fetchStats, fetchTotals } from "../../lib/api-client/stats";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The dashboard's API client against the real API: GET /stats and the
 * counting fallback over GET /events agree bucket by bucket; the export's
 * time-keyed paging returns every event exactly once; errors are typed.
 */
describe("dashboard API client", () => {
  let app: TestApp;
  let client: ApiClient;
  const DAY = 86_400;
  const end = Math.floor(Date.now() / 1000);
  const start = end - 3 * DAY;

  beforeAll(async () => {
    app = await startTestApp();
    const account = await createTestAccount(app.ctx);
    // 60 messages over three days: 240 delivery events and 40 engagement events.
    await insertSyntheticEvents(app.ctx.database.pool, { accountId: account.accountId, messages: 60, engagement: 40, start, end, seed: "it" });
    client = createApiClient({ baseUrl: app.url, apiKey: account.apiKey });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("GET /stats and the counting fallback give the same buckets and totals", async () => {
    for (const Interval of ["hour", "day"] as const) {
      const params = { StartDate: start, EndDate: end, Interval };
      const viaStats = await fetchStats(client, params);
      const viaEvents = await fetchStats(client, params, { forceFallback: true });
      expect(viaStats.source).toBe("stats");
      expect(viaEvents.source).toBe("events");
      expect(viaEvents.stats).toEqual(viaStats.stats);
      expect(viaStats.stats.Totals.accepted).toBe(120);
      expect(viaStats.stats.Totals.opened + viaStats.stats.Totals.clicked + viaStats.stats.Totals.unsubscribed + viaStats.stats.Totals.complained).toBe(40);
    }
    const totals = await fetchTotals(client, { StartDate: start, EndDate: end, Interval: "day" }, { forceFallback: true });
    expect(totals).toEqual((await fetchStats(client, { StartDate: start, EndDate: end, Interval: "day" })).stats.Totals);
  });

  it("falls back to counting when the server answers 404 for /stats", async () => {
    // A server that speaks the spec only: /stats is unknown there (404), /events is passed through.
    const specOnly: typeof fetch = (input, init) => {
      const url = String(input);
      if (url.includes("/api/v1/stats")) {
        return Promise.resolve(
          new Response(JSON.stringify({ Errors: [{ Code: 404, Message: "Resource not found" }] }), {
            status: 404,
            headers: { "Content-Type": "application/json" },
          }),
        );
      }
      return fetch(input, init);
    };
    const account = await createTestAccount(app.ctx, { name: "spec only" });
    await insertSyntheticEvents(app.ctx.database.pool, { accountId: account.accountId, messages: 10, engagement: 5, start, end, seed: "spec" });
    const specClient = createApiClient({ baseUrl: app.url, apiKey: account.apiKey, fetch: specOnly });
    const got = await fetchStats(specClient, { StartDate: start, EndDate: end, Interval: "day" });
    expect(got.source).toBe("events");
    const direct = await countStatsViaEvents(createApiClient({ baseUrl: app.url, apiKey: account.apiKey }), { StartDate: start, EndDate: end, Interval: "day" });
    expect(got.stats).toEqual(direct);
    expect(got.stats.Totals.accepted).toBe(20);
  });

  it("iterates every event of a range exactly once, newest first, across same-second ties", async () => {
    const seen: string[] = [];
    let total = -1;
    let last = Number.POSITIVE_INFINITY;
    for await (const ev of iterateEvents(client, { StartDate: start, EndDate: end }, { onTotal: (n) => (total = n) })) {
      expect(ev.LoggedAt).toBeLessThanOrEqual(last);
      last = ev.LoggedAt;
      seen.push(ev.EventID);
    }
    expect(total).toBe(280);
    expect(seen).toHaveLength(280);
    expect(new Set(seen).size).toBe(280);
  });

  it("throws typed errors: a refused key, a refused parameter", async () => {
    const bad = createApiClient({ baseUrl: app.url, apiKey: "mr_not-a-key" });
    await expect(bad.listEvents()).rejects.toMatchObject({ status: 401, errors: [{ Code: 13 }] });
    const err = await client.listEvents({ StartDate: 10, EndDate: 5 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiRequestError);
    expect((err as ApiRequestError).status).toBe(422);
  });
});
