import { errorItem } from "../../contract/errors";
import type { AuthenticatedKey } from "../accounts/api-keys";
import { nowSeconds } from "../events/event-log";
import { IDEMPOTENCY_HEADER, requestHashOf, resolveOnce, type StoredAnswer } from "./idempotency-key";
import { findIdempotencyKey } from "./idempotency-keys";
import type { RateLimitHeaders } from "./limits";
import { currentHeaders, sendClaiming, type SendDeps, type SendOptions, type SendResult } from "./send-email";

/**
 * POST /email with an `Idempotency-Key` (docs/adr/0110). The first request
 * with a key is sent and its answer committed with its acceptance; the same
 * key with the same raw body replays that answer, with another body it is a
 * 422 naming the header. A concurrent request with the key waits for the
 * holder's transaction and replays its answer; a key that keeps being
 * claimed and released by others is a 409.
 */

export type SendOnceResult = SendResult | { replayed: StoredAnswer; rateLimit?: RateLimitHeaders };

export async function sendEmailOnce(
  deps: SendDeps,
  key: AuthenticatedKey,
  body: unknown,
  request: { idempotencyKey: string; rawBody: Uint8Array },
  options: SendOptions = {},
): Promise<SendOnceResult> {
  const now = options.now ?? nowSeconds();
  const requestHash = await requestHashOf(request.rawBody);
  const claim = { key: request.idempotencyKey, requestHash };
  const outcome = await resolveOnce(requestHash, {
    find: () => findIdempotencyKey(deps.database, key.keyId, claim.key),
    attempt: () => sendClaiming(deps, key, body, { ...options, now }, claim),
  });
  if (outcome.kind === "first") return outcome.result;
  const rateLimit = await currentHeaders(deps, key, now);
  if (outcome.kind === "replay") return { replayed: outcome.answer, rateLimit };
  return { ok: false, errors: [outcome.kind === "mismatch" ? errorItem(422, IDEMPOTENCY_HEADER) : errorItem(409)], rateLimit };
}
