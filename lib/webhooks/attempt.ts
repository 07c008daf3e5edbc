import type { AppContext } from "../context";
import { eventDataSchema } from "../contract/notifications";
import { postJson, type PostOptions } from "./http-post";
import type { AttemptRecord, ClaimedNotification } from "./notification-store";
import { verdictOf } from "./retry-policy";
import { signNotification } from "./signing";

/**
 * One attempt of a claimed notification: build and sign the request, POST
 * it, and turn the answer into the record the dispatcher writes (what the
 * retry policy makes of it included). Never throws for a receiver's
 * failure; a payload that cannot be built is one recorded failed attempt.
 */
export async function attemptNotification(
  ctx: AppContext,
  n: ClaimedNotification,
  postOptions: PostOptions,
  onPosted: (durationMs: number) => void = () => {},
): Promise<AttemptRecord> {
  let signed: ReturnType<typeof signNotification>;
  try {
    signed = buildRequest(n);
  } catch (err) {
    // Not a receiver's failure and no retry would change it: one recorded failed attempt
    // (the webhook's last response and try counter show it), never a crash or a silent loop.
    const kind = err instanceof Error ? err.constructor?.name || err.name : typeof err;
    ctx.log.error({ err, notificationId: n.id, webhookId: n.webhookId }, "webhook notification could not be built; recorded as failed");
    ctx.metrics.webhookAttempts.inc({ result: "failed" });
    const now = new Date();
    return {
      notificationId: n.id,
      webhookId: n.webhookId,
      attempts: n.attempts + 1,
      status: "failed",
      statusCode: 0,
      body: "",
      bodyExcerpt: "",
      notSent: true,
      durationMs: 0,
      error: `Internal error: the notification could not be built (${kind}); not sent, not retried`,
      startedAt: now,
      endedAt: now,
    };
  }
  const result = await postJson(n.url, signed.body, signed.headers, postOptions);
  onPosted(result.durationMs);
  const attempts = n.attempts + 1;
  const verdict = verdictOf(result.statusCode, attempts, ctx.config.webhooks.retryScheduleMs, {
    retryAfterMs: result.retryAfterMs,
    singleAttempt: n.singleAttempt,
  });
  ctx.metrics.webhookAttempts.inc({ result: verdict.kind === "gone" ? "refused" : verdict.kind });
  ctx.log.info(
    { notificationId: n.id, webhookId: n.webhookId, messageId: (n.payload as { MessageID?: string }).MessageID, status: result.statusCode, attempt: attempts, verdict: verdict.kind },
    "webhook attempt",
  );
  return {
    notificationId: n.id,
    webhookId: n.webhookId,
    attempts,
    status: verdict.kind === "delivered" ? "delivered" : verdict.kind === "retry" ? "pending" : "failed",
    retryInMs: verdict.kind === "retry" ? verdict.delayMs : undefined,
    statusCode: result.statusCode,
    body: result.body,
    bodyExcerpt: result.bodyExcerpt,
    durationMs: result.durationMs,
    error:
      result.error ??
      (verdict.kind === "refused" ? "406: receiver refused, not retried" : verdict.kind === "gone" ? "410: endpoint gone, not retried; webhook disabled" : undefined),
    startedAt: result.startedAt,
    endedAt: new Date(),
  };
}

/** The signed request of a notification; throws when its stored payload is no event data at all. */
function buildRequest(n: ClaimedNotification): ReturnType<typeof signNotification> {
  if (n.payload === null || typeof n.payload !== "object" || Array.isArray(n.payload)) {
    throw new TypeError("the stored payload is not an object");
  }
  const parsed = eventDataSchema.safeParse(n.payload);
  // Canonical member order (jsonb reorders keys); an object that no longer parses goes as stored.
  const eventData = parsed.success ? parsed.data : n.payload;
  return signNotification({ signingKey: n.signingKey, notificationId: n.id, eventData });
}
