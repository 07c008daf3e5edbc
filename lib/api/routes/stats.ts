import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context";
import { errorItem } from "../../contract/errors";
import { MAX_STATS_BUCKETS, statsQuerySchema } from "../../contract/stats";
import { eventBreakdown } from "../../domain/events/event-breakdown";
import { bucketCount, eventStats } from "../../domain/events/event-stats";
import type { ApiEnv } from "../../http/env";
import { errorResponse } from "../../http/errors";
import { queryInput } from "../../http/query";
import { COMMON_ERRORS, errorResponses, StatsResponse } from "../openapi";

/** GET /stats (extension): counts per event type per hour or day bucket; with `By`, a breakdown too (docs/adr/0517). */
const getStatsRoute = createRoute({
  method: "get",
  path: "/stats",
  operationId: "getStats",
  summary: "Extension: counts per event type per hour or day",
  request: { query: queryInput(statsQuerySchema) },
  responses: {
    200: { description: "Buckets and totals", content: { "application/json": { schema: StatsResponse } } },
    ...errorResponses(422, ...COMMON_ERRORS),
  },
});

export function addStatsRoutes(app: OpenAPIHono<ApiEnv>, ctx: AppContext): void {
  app.openapi(getStatsRoute, async (c) => {
    const { StartDate, EndDate, Interval, By } = c.req.valid("query");
    if (bucketCount(StartDate, EndDate, Interval) > MAX_STATS_BUCKETS) {
      return errorResponse(c, [errorItem(422, "EndDate")]);
    }
    const accountId = c.get("auth").accountId;
    // On the read replica when it has this account's writes (docs/adr/0035, 0036).
    const onError = (err: unknown) => c.get("log").warn({ err }, "event roll-up failed");
    const stats = await ctx.reads.run(accountId, async (database) => {
      const reads = { database, rollups: ctx.rollups };
      const range = { startDate: StartDate, endDate: EndDate, interval: Interval };
      const counts = await eventStats(reads, accountId, range, onError);
      // The breakdown covers the same range as the buckets (from the first bucket's start).
      return By ? { ...counts, Breakdown: await eventBreakdown(reads, accountId, { startDate: counts.StartDate, endDate: EndDate, by: By }, onError) } : counts;
    });
    return c.json(stats, 200);
  });
}
