import { setImmediate as nextTurn } from "node:timers/promises";
import { errorItem, type ApiErrorItem } from "../../contract/errors";
import type { BatchItemResult } from "../../contract/scheduled";
import type { Logger } from "../../logger";
import type { PgBoss } from "../../queue/boss";
import type { Database } from "../../storage/database";
import type { AcceptOutcome, Acceptance } from "./accept-messages";
import type { AuthenticatedKey } from "../accounts/api-keys";
import { nowSeconds } from "../events/event-log";
import { CLAIM_LOST, IDEMPOTENCY_HEADER, requestHashOf, resolveOnce, type StoredAnswer } from "./idempotency-key";
import { findIdempotencyKey, storeIdempotentAnswer } from "./idempotency-keys";
import type { RateLimitHeaders } from "./limits";
import { currentHeaders, prepareAcceptance, refusalOf, type SendOptions, type UnitAcceptor, type VerifiedDomainCache } from "./send-email";

/**
 * POST /email/batch (docs/contract.md §15.4, docs/adr/0126): each item goes
 * through the same preparation as POST /email (prepareAcceptance:
 * validation, SendAt, the From domain), then every prepared item is accepted
 * in ONE transaction of the process's group commit, where suppression and
 * limits are decided per message. The answer lists, in order, `{MessageID}`
 * or `{Errors}` per item; one refused item never refuses the others. An
 * Idempotency-Key covers the whole batch: claimed in that transaction and
 * answered with the array.
 */

export interface BatchDeps {
  database: Database;
  boss: PgBoss;
  log: Logger;
  acceptBatch: UnitAcceptor;
  verifiedDomains: VerifiedDomainCache;
}

export type BatchResult =
  | { ok: true; results: BatchItemResult[]; rateLimit?: RateLimitHeaders }
  | { ok: false; errors: ApiErrorItem[]; rateLimit?: RateLimitHeaders }
  | { replayed: StoredAnswer; rateLimit?: RateLimitHeaders };

/** Preparing items runs on the event loop: it yields after this long, so that a 50 MB batch never holds it. */
const SLICE_MS = 20;

export async function sendBatch(
  deps: BatchDeps,
  key: AuthenticatedKey,
  items: readonly unknown[],
  options: SendOptions & { idempotency?: { key: string; rawBody: Uint8Array } } = {},
): Promise<BatchResult> {
  const now = options.now ?? nowSeconds();
  if (!options.idempotency) {
    const out = await attemptBatch(deps, key, items, { ...options, now });
    if (out === CLAIM_LOST) throw new Error("no Idempotency-Key was claimed");
    return { ok: true, results: out, rateLimit: await currentHeaders(deps, key, now) };
  }
  const requestHash = await requestHashOf(options.idempotency.rawBody);
  const claim = { apiKeyId: key.keyId, key: options.idempotency.key, requestHash };
  const outcome = await resolveOnce(requestHash, {
    find: () => findIdempotencyKey(deps.database, key.keyId, claim.key),
    attempt: () => attemptBatch(deps, key, items, { ...options, now }, claim),
  });
  const rateLimit = await currentHeaders(deps, key, now);
  if (outcome.kind === "first") return { ok: true, results: outcome.result, rateLimit };
  if (outcome.kind === "replay") return { replayed: outcome.answer, rateLimit };
  return { ok: false, errors: [outcome.kind === "mismatch" ? errorItem(422, IDEMPOTENCY_HEADER) : errorItem(409)], rateLimit };
}

async function attemptBatch(
  deps: BatchDeps,
  key: AuthenticatedKey,
  items: readonly unknown[],
  options: SendOptions & { now: number },
  claim?: { apiKeyId: string; key: string; requestHash: Buffer },
): Promise<BatchItemResult[] | typeof CLAIM_LOST> {
  const results: (BatchItemResult | undefined)[] = items.map(() => undefined);
  const prepared: { i: number; acceptance: Acceptance }[] = [];
  let sliceStart = performance.now();
  for (let i = 0; i < items.length; i++) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
    const p = await prepareAcceptance(deps, key, items[i], options);
    if (p.ok) prepared.push({ i, acceptance: p.acceptance });
    else results[i] = { Errors: p.errors };
  }

  const render = (outcomes: AcceptOutcome[]): BatchItemResult[] => {
    const out = [...results];
    prepared.forEach(({ i, acceptance }, n) => {
      const o = outcomes[n]!;
      out[i] = o.ok ? { MessageID: acceptance.messageId } : { Errors: refusalOf(o, options.now).errors };
    });
    return out as BatchItemResult[];
  };
  const answerOf = (outcomes: AcceptOutcome[]): StoredAnswer => ({ status: 200, body: JSON.stringify(render(outcomes)) });

  if (prepared.length === 0) {
    // Nothing to accept: the refusals are the answer, kept for the key like any other (docs/adr/0126).
    if (claim && !(await storeIdempotentAnswer(deps.database, { ...claim, answer: answerOf([]) }))) return CLAIM_LOST;
    return render([]);
  }
  const outcomes = await deps.acceptBatch({
    items: prepared.map((p) => p.acceptance),
    ...(claim && { claim: { ...claim, answer: answerOf } }),
  });
  if (outcomes.some((o) => !o.ok && o.reason === "duplicate")) return CLAIM_LOST;
  return render(outcomes);
}
