import { Hono } from "hono";
import type { AppContext } from "../../context";
import { errorItem } from "../../contract/errors";
import { MAX_STATS_BUCKETS, statsQuerySchema } from "../../contract/stats";
import { bucketCount, eventStats } from "../../domain/event-stats";
import type { ApiEnv } from "../../http/env";
import { errorResponse } from "../../http/errors";
import { parseQuery, withoutEmpty } from "../../http/query";

/** GET /stats (extension): counts per event type per hour or day bucket. */
export function createStatsRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>({ strict: false });
  app.get("/stats", async (c) => {
    const q = parseQuery(statsQuerySchema, withoutEmpty(c.req.query()));
    if (!q.ok) return errorResponse(c, q.errors);
    const { StartDate, EndDate, Interval } = q.data;
    if (bucketCount(StartDate, EndDate, Interval) > MAX_STATS_BUCKETS) {
      return errorResponse(c, [errorItem(422, "EndDate")]);
    }
    return c.json(await eventStats(ctx.database, c.get("auth").accountId, { startDate: StartDate, endDate: EndDate, interval: Interval }, (err) =>
        c.get("log").warn({ err }, "event roll-up failed"),
      ),
    );
  });
  return app;
}
