import { Hono } from "hono";
import type { AppContext } from "../../context";
import { ACCEPTED_ALIAS, eventsQuerySchema } from "../../contract/events";
import { listEvents } from "../../domain/list-events";
import type { ApiEnv } from "../../http/env";
import { errorResponse } from "../../http/errors";
import { parseQuery, withoutEmpty } from "../../http/query";

/** GET /events: parse the query (MessageId is an alias of MessageID), list the account's events. */
export function createEventsRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>({ strict: false });
  app.get("/events", async (c) => {
    const raw = withoutEmpty(c.req.query());
    if (raw.MessageID === undefined && raw.MessageId !== undefined) raw.MessageID = raw.MessageId;
    delete raw.MessageId;
    const q = parseQuery(eventsQuerySchema, raw);
    if (!q.ok) return errorResponse(c, q.errors);
    const d = q.data;
    const result = await listEvents(ctx.database, c.get("auth").accountId, {
      startDate: d.StartDate,
      endDate: d.EndDate,
      type: d.Event === ACCEPTED_ALIAS ? "accepted" : d.Event,
      messageId: d.MessageID,
      startFrom: d.StartFrom,
      retrieveCount: d.RetrieveCount,
    }, (err) => c.get("log").warn({ err }, "event roll-up failed"));
    return c.json(result);
  });
  return app;
}
