import type { Context, Next } from "hono";
import { AccountAdmission, type AdmissionBounds } from "./admission";
import { markBodyLeftUnread } from "./body";
import type { ApiEnv } from "./env";
import { errorItem } from "../contract/errors";
import { sendingPausedMessage } from "../domain/sending/guardrails/paused";
import { apiError, errorResponse } from "./errors";

/**
 * The per-account line in front of the sending routes (docs/adr/0133,
 * docs/contract.md §6.6), right after the key: nothing of the request but
 * its headers has been read. Past the line, 429 code 429 with
 * `Retry-After: 1` and the connection closed, the body never read (so a
 * body that never arrives holds nothing). Returns the refusal, or nothing
 * once `next` has run in its turn.
 */
export function sendAdmission(bounds: AdmissionBounds): (c: Context<ApiEnv>, next: Next) => Promise<Response | void> {
  const admission = new AccountAdmission(bounds);
  return async (c, next) => {
    const entry = await admission.enter(c.get("auth").accountId);
    if (!entry.admitted) {
      markBodyLeftUnread(c.req.raw);
      return apiError(c, 429, undefined, { "Retry-After": "1" });
    }
    try {
      await next();
    } finally {
      entry.leave();
    }
  };
}

/**
 * Sending refused while the reputation guardrails keep the account paused
 * (docs/adr/0136), right after the key: 403, code 403, the Message says why;
 * the body is never read.
 */
export function refusePausedSending(c: Context<ApiEnv>): Response | undefined {
  const message = sendingPausedMessage(c.get("auth"));
  if (message === undefined) return undefined;
  markBodyLeftUnread(c.req.raw);
  return errorResponse(c, [{ ...errorItem(403), Message: message }]);
}
