import { randomUUID } from "node:crypto";
import { domainToASCII } from "node:url";
import { errorItem, type ApiErrorItem } from "../../contract/errors";
import type { Logger } from "../../logger";
import type { PgBoss } from "../../queue/boss";
import type { Database } from "../../storage/database";
import { isRowDataError } from "../../storage/sqlstate";
import { withTransaction } from "../../storage/transaction";
import { hasVerifiedDomain } from "../../storage/verified-domain-rows";
import type { AuthenticatedKey } from "../accounts/api-keys";
import { emailDomain } from "./email-request/addresses";
import { messageHeadersOf } from "./email-request/message-record";
import { MAX_REPORTED_ERRORS, validateEmailRequest } from "./email-request/validate";
import { parseSendAt, SEND_AT_FIELD } from "../../contract/scheduled";
import { acceptUnits, type AcceptOutcome, type AcceptPolicy, type Acceptance, type AcceptRecipient, type AcceptUnit } from "./accept-messages";
import { nowSeconds } from "../events/event-log";
import { BacklogFullError } from "./delivery-backlog";
import { keyMaySendFrom } from "../accounts/key-scope";
import { CLAIM_LOST, refusedAnswer } from "./idempotency-key";
import { storeIdempotentAnswer } from "./idempotency-keys";
import { createGroupCommit } from "../../storage/group-commit";
import { readUsage } from "./limit-counters";
import { hasLimits, rateLimitHeaders, refusingWindow, secondsToReset, type RateLimitHeaders } from "./limits";
import { normalizeEmail } from "../accounts/suppressions";
import { ExpiringMap } from "../shared/expiring-map";
import { resolveTemplateContent } from "./resolve-template";

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
  /** The process's acceptor (createUnitAcceptor behind refusingAcceptors, acceptance-refusals.ts; held on AppContext). */
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
  const refuse = async (errors: ApiErrorItem[], retryAfter?: number): Promise<SendResult> => ({
    ok: false,
    errors,
    ...(retryAfter !== undefined && { retryAfter }),
    rateLimit: await currentHeaders(deps, key, now),
  });

  const prepared = await prepareAcceptance(deps, key, body, { ...options, now });
  if (!prepared.ok) {
    if (prepared.decided && claim && !(await storeIdempotentAnswer(deps.database, { apiKeyId: key.keyId, ...claim, answer: refusedAnswer(prepared.errors) }))) {
      return CLAIM_LOST;
    }
    return refuse(prepared.errors, prepared.retryAfter);
  }
  const messageId = prepared.acceptance.messageId;
  let outcome: AcceptOutcome;
  try {
    outcome = await deps.accept({ ...prepared.acceptance, ...(claim && { idempotency: claim }) });
  } catch (err) {
    // The delivery backlog is at its maximum (docs/contract.md §18): nothing was stored or claimed, retry shortly.
    if (err instanceof BacklogFullError) return { ok: false, errors: [errorItem(429)], retryAfter: err.retryAfter, rateLimit: await currentHeaders(deps, key, now) };
    throw err;
  }
  if (outcome.ok) return { ok: true, messageId, rateLimit: rateLimitHeaders(outcome.usages, now) };
  if (outcome.reason === "duplicate") return CLAIM_LOST;
  return { ...refusalOf(outcome, now), rateLimit: await currentHeaders(deps, key, now) };
}

/** A refused acceptance as the errors and Retry-After of POST /email (and of a batch item). */
export function refusalOf(outcome: Exclude<AcceptOutcome, { ok: true }>, now: number): { ok: false; errors: ApiErrorItem[]; retryAfter?: number } {
  // Every recipient suppressed (step 15): nothing is stored, as no MessageID is given out.
  if (outcome.reason === "suppressed") return { ok: false, errors: [errorItem(14)] };
  if (outcome.reason === "duplicate") return { ok: false, errors: [errorItem(409)] };
  const w = refusingWindow(outcome.refused)!;
  return { ok: false, errors: [errorItem(w.code)], retryAfter: secondsToReset(w.kind, now) };
}

export type Prepared =
  | { ok: true; acceptance: Acceptance }
  /** `decided`: refused after validation (the From domain, step 14), an answer an Idempotency-Key keeps (docs/adr/0110). `retryAfter`: a 429's, seconds. */
  | { ok: false; errors: ApiErrorItem[]; decided?: boolean; retryAfter?: number };

/**
 * One email request up to its acceptance: validation (steps 1–13 and
 * `SendAt`, docs/contract.md §15.1), the verified From domain (14), its
 * recipients (each address once) and a new MessageID. POST /email and each
 * item of POST /email/batch go through it, so both refuse with the same
 * codes; suppression and limits (15–16) are decided in the acceptance
 * transaction.
 */
export async function prepareAcceptance(
  deps: Pick<SendDeps, "database" | "verifiedDomains">,
  key: AuthenticatedKey,
  body: unknown,
  options: SendOptions & { now: number },
): Promise<Prepared> {
  const { now } = options;
  // A template's rendered content takes the place of Subject and the bodies; any other body is passed on as it is.
  const resolved = await resolveTemplateContent(deps.database, key, body, now);
  if (!resolved.ok) return { ok: false, errors: resolved.errors, ...(resolved.retryAfter !== undefined && { retryAfter: resolved.retryAfter }) };
  const v = validateEmailRequest(resolved.body);
  const sendAt = parseSendAt(isRecord(body) ? body[SEND_AT_FIELD] : undefined, now);
  if (!v.ok || !sendAt.ok) {
    const errors = [...(v.ok ? [] : v.errors), ...(sendAt.ok ? [] : [errorItem(422, SEND_AT_FIELD)])];
    return { ok: false, errors: errors.slice(0, MAX_REPORTED_ERRORS) };
  }
  const content = v.content;

  // A key limited to some sender domains (docs/contract.md §17.3) gets the same code 32 for any other.
  const fromDomain = emailDomain(content.from.email);
  if (!keyMaySendFrom(key.senderDomains, fromDomain) || !(await isVerifiedDomain(deps, key.accountId, fromDomain))) {
    return { ok: false, errors: [errorItem(32, "From.email")], decided: true };
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
  return {
    ok: true,
    acceptance: {
      messageId,
      key,
      content,
      headers: messageHeadersOf(messageId, content),
      recipients,
      transport: options.transport ?? "api",
      ...(options.requestId && { requestId: options.requestId }),
      now,
      ...(sendAt.at !== undefined && { sendAt: sendAt.at }),
      ...(resolved.template && { template: resolved.template }),
    },
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Acceptances of one process are group-committed (docs/adr/0102): requests
 * that arrive while a transaction is committing share the next one. Two
 * transactions at a time keep both of the database's cores busy; 64 messages
 * bound a transaction's size.
 */
const ACCEPT_BATCH = { maxBatch: 64, maxInFlight: 2 };

export type Acceptor = (a: Acceptance) => Promise<AcceptOutcome>;
/** A batch's messages (and its Idempotency-Key), accepted in one transaction (docs/adr/0126). */
export type UnitAcceptor = (unit: AcceptUnit) => Promise<AcceptOutcome[]>;

/** One message through the unit acceptor: a unit of one. */
export function singleAcceptor(unit: UnitAcceptor): Acceptor {
  return (a) => unit({ items: [a] }).then((o) => o[0]!);
}

/** One per process (buildAppContext): the requests it serves share its transactions. */
export function createAcceptor(database: Database, boss: PgBoss): Acceptor {
  return singleAcceptor(createUnitAcceptor(database, boss));
}

/**
 * The group commit itself, over units: a single message is a unit of one, a
 * batch one unit of all its messages, counted by its messages against the
 * transaction's bound (a batch larger than it is a transaction of its own).
 */
export function createUnitAcceptor(database: Database, boss: PgBoss, policy?: AcceptPolicy): UnitAcceptor {
  return createGroupCommit((units: AcceptUnit[]) => withTransaction(database, (tx) => acceptUnits(tx, boss, units, policy)), {
    ...ACCEPT_BATCH,
    isolate: isRowDataError,
    weightOf: (u) => u.items.length,
  });
}


/** The X-RateLimit headers of a response that consumed nothing. */
export async function currentHeaders(deps: Pick<SendDeps, "database">, key: AuthenticatedKey, now: number): Promise<RateLimitHeaders | undefined> {
  if (!hasLimits(key.limits)) return undefined;
  return rateLimitHeaders(await readUsage(deps.database, key.keyId, key.limits, now), now);
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
  if (!(await hasVerifiedDomain(database, accountId, [...new Set([domain, ascii])]))) return false;
  verifiedDomains.set(cacheKey, true);
  return true;
}
