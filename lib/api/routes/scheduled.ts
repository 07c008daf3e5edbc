import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context";
import {
  ALREADY_STARTED,
  messageScheduleSchema,
  parseSendAt,
  rescheduleRequestSchema,
  scheduledListSchema,
  SEND_AT_FIELD,
  type MessageSchedule,
} from "../../contract/scheduled";
import { nowSeconds } from "../../domain/events/event-log";
import { cancelScheduledMessage, listScheduledMessages, messageSchedule, rescheduleMessage, type ScheduleChange } from "../../domain/sending/scheduled-sends";
import type { ApiEnv } from "../../http/env";
import { apiError, errorResponse } from "../../http/errors";
import { readValidJson } from "../../http/validation";
import { COMMON_ERRORS, errorResponses } from "../openapi";

/**
 * The schedule of a message (docs/contract.md §15.2–§15.3): GET, PATCH
 * (a new SendAt) and cancel, and the list of the account's scheduled
 * messages. Another account's message, or an id that is no UUID, is 404;
 * so is, for PATCH and cancel, a message From a domain outside the sender
 * domains of a key limited to some (docs/contract.md §17.3).
 */

const messageIdParam = z.object({
  MessageID: z.string().max(200).openapi({ param: { name: "MessageID", in: "path" }, description: "The MessageID POST /email answered" }),
});

const scheduleBody = { "application/json": { schema: messageScheduleSchema } };

const listScheduledRoute = createRoute({
  method: "get",
  path: "/email/scheduled",
  operationId: "listScheduledEmails",
  summary: "The account's scheduled messages, soonest first (at most 100)",
  responses: {
    200: { description: "Messages still scheduled", content: { "application/json": { schema: scheduledListSchema } } },
    ...errorResponses(...COMMON_ERRORS),
  },
});

const getScheduleRoute = createRoute({
  method: "get",
  path: "/email/{MessageID}",
  operationId: "getEmailSchedule",
  summary: "A message's schedule: scheduled, sending, sent or cancelled",
  request: { params: messageIdParam },
  responses: {
    200: { description: "The message's status and time", content: scheduleBody },
    ...errorResponses(404, ...COMMON_ERRORS),
  },
});

const rescheduleRoute = createRoute({
  method: "patch",
  path: "/email/{MessageID}",
  operationId: "rescheduleEmail",
  summary: "Give a scheduled message a new SendAt",
  request: {
    params: messageIdParam,
    body: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/RescheduleRequest" } } } },
  },
  responses: {
    200: { description: "Rescheduled", content: scheduleBody },
    ...errorResponses(404, 409, 422, ...COMMON_ERRORS),
  },
});

const cancelRoute = createRoute({
  method: "post",
  path: "/email/{MessageID}/cancel",
  operationId: "cancelEmail",
  summary: "Cancel a scheduled message: each recipient gets its final `failed` event (Reason \"cancelled before sending\")",
  request: { params: messageIdParam },
  responses: {
    200: { description: "Cancelled", content: scheduleBody },
    ...errorResponses(404, 409, ...COMMON_ERRORS),
  },
});

const isUuid = (s: string) => z.uuid().safeParse(s).success;

export function addScheduledRoutes(app: OpenAPIHono<ApiEnv>, ctx: AppContext): void {
  // A clone: contract schemas may predate the .openapi() that @hono/zod-openapi adds (lib/api/openapi.ts).
  app.openAPIRegistry.register("RescheduleRequest", rescheduleRequestSchema.clone());

  const answer = async (c: Parameters<Parameters<typeof app.openapi>[1]>[0], change: ScheduleChange, messageId: string) => {
    if (change === "not-found") return apiError(c, 404);
    if (change === "started") return errorResponse(c, [ALREADY_STARTED]);
    const schedule = await messageSchedule(ctx.database, c.get("auth").accountId, messageId);
    return c.json(schedule satisfies MessageSchedule | undefined, 200);
  };

  app.openapi(listScheduledRoute, async (c) => c.json(await listScheduledMessages(ctx.database, c.get("auth").accountId), 200));

  app.openapi(getScheduleRoute, async (c) => {
    const { MessageID } = c.req.valid("param");
    const schedule = isUuid(MessageID) ? await messageSchedule(ctx.database, c.get("auth").accountId, MessageID) : undefined;
    if (!schedule) return apiError(c, 404);
    return c.json(schedule, 200);
  });

  app.openapi(rescheduleRoute, async (c) => {
    const { MessageID } = c.req.valid("param");
    if (!isUuid(MessageID)) return apiError(c, 404);
    const input = await readValidJson(c, rescheduleRequestSchema, 64 * 1024);
    if (!input.ok) return input.response;
    const sendAt = parseSendAt(input.data.SendAt, nowSeconds());
    if (!sendAt.ok) return apiError(c, 422, SEND_AT_FIELD);
    // A new time is a send as far as the delivery backlog goes (docs/adr/0129): refused (429) while it is at its maximum.
    ctx.backlog.assertAccepting();
    const change = await rescheduleMessage(ctx.database, c.get("auth"), MessageID, sendAt.at);
    return answer(c, change, MessageID);
  });

  app.openapi(cancelRoute, async (c) => {
    const { MessageID } = c.req.valid("param");
    if (!isUuid(MessageID)) return apiError(c, 404);
    const key = c.get("auth");
    const change = await cancelScheduledMessage(ctx.database, ctx.boss, key, MessageID);
    // Its `failed` events are the caller's write: its event reads wait for the replica to have them (docs/adr/0036).
    ctx.reads.noteWrite(key.accountId);
    return answer(c, change, MessageID);
  });
}
