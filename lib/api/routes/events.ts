import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context";
import { ACCEPTED_ALIAS, eventsQuerySchema } from "../../contract/events";
import { listEvents } from "../../domain/events/list-events";
import type { ApiEnv } from "../../http/env";
import { queryInput } from "../../http/query";
import { COMMON_ERRORS, errorResponses, EventsResponse } from "../openapi";

/** GET /events: the query is the contract's schema; `MessageId` is an alias of `MessageID`. */
const listEventsRoute = createRoute({
  method: "get",
  path: "/events",
  operationId: "listEvents",
  summary: "Read the event log, newest first",
  description: "Events older than the account's retention period are never returned nor counted in TotalRecords, even before the purge removes them.",
  request: { query: queryInput(eventsQuerySchema, { MessageId: "MessageID" }) },
  parameters: [{ name: "MessageId", in: "query", required: false, description: "Alias of MessageID", schema: { type: "string" } }],
  responses: {
    200: { description: "A page of events", content: { "application/json": { schema: EventsResponse } } },
    ...errorResponses(422, ...COMMON_ERRORS),
  },
});

export function addEventsRoutes(app: OpenAPIHono<ApiEnv>, ctx: AppContext): void {
  app.openapi(listEventsRoute, async (c) => {
    const d = c.req.valid("query");
    const accountId = c.get("auth").accountId;
    const filter = {
      startDate: d.StartDate,
      endDate: d.EndDate,
      type: d.Event === ACCEPTED_ALIAS ? "accepted" : d.Event,
      messageId: d.MessageID,
      recipient: d.Recipient,
      subject: d.Subject,
      startFrom: d.StartFrom,
      retrieveCount: d.RetrieveCount,
    } as const;
    // On the read replica when it has this account's writes (docs/adr/0035, 0036). A message (or a
    // recipient's, or a subject's) it does not know yet may be one another process just accepted: the primary is asked too.
    const result = await ctx.reads.run(
      accountId,
      (database) => listEvents({ database, rollups: ctx.rollups }, accountId, filter, (err) => c.get("log").warn({ err }, "event roll-up failed")),
      { retryOnPrimary: (r) => (filter.messageId !== undefined || filter.recipient !== undefined || filter.subject !== undefined) && r.TotalRecords === 0 },
    );
    return c.json(result, 200);
  });
}
