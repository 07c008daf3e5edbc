import { randomUUID } from "node:crypto";
import { domainToASCII } from "node:url";
import { errorItem, type ApiErrorItem } from "../contract/errors";
import type { Logger } from "../logger";
import type { PgBoss } from "../queue/boss";
import type { Database } from "../storage/database";
import { isRowDataError } from "../storage/sqlstate";
import { withTransaction } from "../storage/transaction";
import type { AuthenticatedKey } from "./api-keys";
import { emailDomain } from "./email-request/addresses";
import { messageHeadersOf } from "./email-request/message-record";
import { validateEmailRequest } from "./email-request/validate";
import { acceptMessages, type AcceptOutcome, type Acceptance, type AcceptRecipient } from "./accept-messages";
import { nowSeconds } from "./event-log";
import { keyMaySendFrom } from "./key-scope";
import { CLAIM_LOST, refusedAnswer } from "./idempotency-key";
import { storeIdempotentAnswer } from "./idempotency-keys";
import { createGroupCommit } from "../storage/group-commit";
import { readUsage } from "./limit-counters";
import { hasLimits, rateLimitHeaders, refusingWindow, secondsToReset, type RateLimitHeaders } from "./limits";
import { normalizeEmail } from "./suppressions";
import { ExpiringMap } from "./expiring-map";
import { resolveTemplateContent } from "./templates/resolve";

/**
 * POST /email as a use case (docs/contract.md §5): a template's rendered
 * content in place of Subject and the bodies (§14.3), validation (steps
 * 1–13), the verified From domain (14), suppression (15), limits (16), then
 * durable acceptance in one transaction (accept-messages.ts), which it may
 * share with other requests (group commit). Answers only after COMMIT.
 */

export interface SendDeps {
  database: Database;
  boss: PgBoss;
  log: Logger;
  /** The process's acceptor (createAcceptor, held on AppContext). */
  accept: Acceptor;
  verifiedDomains: VerifiedDomainCache;
}

export type SendResult =
  | { ok: true; messageId: string; rateLimit?: RateLimitHeaders }
  | { ok: false; errors: ApiErrorItem[]; retryAfter?: number; rateLimit?: RateLimitHeaders };

export interface SendOptions {
  requestId?: string;
  transport?: "api" | "smtp";
  /** Unix seconds; tests pin it. */
  now?: number;
}

export async function sendEmail(deps: SendDeps, key: AuthenticatedKey, body: unknown, options: SendOptions = {}): Promise<SendResult> {
  const result = await sendClaiming(deps, key, body, options);
  // Without a key there is no claim to lose.
  if (result === CLAIM_LOST) throw new Error("no Idempotency-Key was claimed");
  return result;
}

/**
 * sendEmail that also claims `claim`, an Idempotency-Key, with its answer
 * (send-email-once.ts): in the acceptance transaction, or alone for a From
 * domain that is not verified. CLAIM_LOST: another request holds the key and
 * nothing was done. Requests refused by validation (steps 1–13) claim nothing.
 */
export async function sendClaiming(
  deps: SendDeps,
  key: AuthenticatedKey,
  body: unknown,
  options: SendOptions,
  claim?: { key: string; requestHash: Buffer },
): Promise<SendResult | typeof CLAIM_LOST> {
  const now = options.now ?? nowSeconds();
  const refuse = async (errors: ApiErrorItem[]): Promise<SendResult> => ({ ok: false, errors, rateLimit: await currentHeaders(deps, key, now) });

  // A template's rendered content takes the place of Subject and the bodies; any other body is passed on as it is.
  const resolved = await resolveTemplateContent(deps.database, key.accountId, body);
  if (!resolved.ok) return refuse(resolved.errors);
  const v = validateEmailRequest(resolved.body);
  if (!v.ok) return refuse(v.errors);
  const content = v.content;

  // A key limited to some sender domains (docs/contract.md §17.3) gets the same code 32 for any other.
  const fromDomain = emailDomain(content.from.email);
  if (!keyMaySendFrom(key.senderDomains, fromDomain) || !(await isVerifiedDomain(deps, key.accountId, fromDomain))) {
    const errors = [errorItem(32, "From.email")];
    if (claim && !(await storeIdempotentAnswer(deps.database, { apiKeyId: key.keyId, ...claim, answer: refusedAnswer(errors) }))) return CLAIM_LOST;
    return refuse(errors);
  }

  // Each address once (first occurrence wins), To before CC before BCC.
  const recipients: AcceptRecipient[] = [];
  const seen = new Set<string>();
  for (const [kind, list] of [["to", content.to], ["cc", content.cc], ["bcc", content.bcc]] as const) {
    for (const a of list) {
      const normalized = normalizeEmail(a.email);
      if (seen.has(normalized)) continue;
      seen.add(normalized);
      recipients.push({ ...a, kind, normalized });
    }
  }

  const messageId = randomUUID();
  const outcome = await deps.accept({
    messageId,
    key,
    content,
    headers: messageHeadersOf(messageId, content),
    recipients,
    transport: options.transport ?? "api",
    ...(options.requestId && { requestId: options.requestId }),
    now,
    ...(claim && { idempotency: claim }),
    ...(resolved.template && { template: resolved.template }),
  });
  if (outcome.ok) return { ok: true, messageId, rateLimit: rateLimitHeaders(outcome.usages, now) };
  if (outcome.reason === "duplicate") return CLAIM_LOST;
  // Every recipient suppressed (step 15): nothing is stored, as no MessageID is given out.
  if (outcome.reason === "suppressed") return refuse([errorItem(14)]);
  const w = refusingWindow(outcome.refused)!;
  return { ok: false, errors: [errorItem(w.code)], retryAfter: secondsToReset(w.kind, now), rateLimit: await currentHeaders(deps, key, now) };
}

/**
 * Acceptances of one process are group-committed (docs/adr/0102): requests
 * that arrive while a transaction is committing share the next one. Two
 * transactions at a time keep both of the database's cores busy; 64 messages
 * bound a transaction's size.
 */
const ACCEPT_BATCH = { maxBatch: 64, maxInFlight: 2 };

export type Acceptor = (a: Acceptance) => Promise<AcceptOutcome>;

/** One per process (buildAppContext): the requests it serves share its transactions. */
export function createAcceptor(database: Database, boss: PgBoss): Acceptor {
  return createGroupCommit((items: Acceptance[]) => withTransaction(database, (tx) => acceptMessages(tx, boss, items)), {
    ...ACCEPT_BATCH,
    isolate: isRowDataError,
  });
}


/** The X-RateLimit headers of a response that consumed nothing. */
export async function currentHeaders(deps: SendDeps, key: AuthenticatedKey, now: number): Promise<RateLimitHeaders | undefined> {
  if (!hasLimits(key.limits)) return undefined;
  return rateLimitHeaders(await readUsage(deps.database.pool, key.keyId, key.limits, now), now);
}

/** Positive answers of isVerifiedDomain, one memo per process (`ctx.verifiedDomains`). */
export type VerifiedDomainCache = ExpiringMap<true>;

// A verified domain stays verified: positive answers are cached briefly (like API keys).
export function createVerifiedDomainCache(): VerifiedDomainCache {
  return new ExpiringMap<true>(5_000);
}

export async function isVerifiedDomain(deps: { database: Database; verifiedDomains: VerifiedDomainCache }, accountId: string, domain: string): Promise<boolean> {
  const { database, verifiedDomains } = deps;
  const ascii = domainToASCII(domain) || domain;
  const cacheKey = `${accountId}|${ascii}`;
  if (verifiedDomains.get(cacheKey)) return true;
  const { rows } = await database.pool.query(
    `SELECT 1 FROM sender_domains WHERE account_id = $1 AND name = ANY($2::text[]) AND status = 'verified' LIMIT 1`,
    [accountId, [...new Set([domain, ascii])]],
  );
  if (rows.length === 0) return false;
  verifiedDomains.set(cacheKey, true);
  return true;
}
