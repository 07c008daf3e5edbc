import { randomUUID } from "node:crypto";
import { domainToASCII } from "node:url";
import { errorItem, type ApiErrorItem } from "../contract/errors";
import type { Logger } from "../logger";
import type { PgBoss } from "../queue/boss";
import { QUEUE, type DeliverJob } from "../queue/jobs";
import type { Database } from "../storage/database";
import { withTransaction } from "../storage/transaction";
import type { AuthenticatedKey } from "./api-keys";
import { emailDomain } from "./email-request/addresses";
import type { ContentAddress } from "./email-request/message-content";
import { estimateMimeSize, messageHeadersOf } from "./email-request/message-record";
import { validateEmailRequest } from "./email-request/validate";
import { logEvents, nowSeconds, type NewEvent } from "./event-log";
import { consumeLimits, readUsage } from "./limit-counters";
import { rateLimitHeaders, refusingWindow, secondsToReset, type RateLimitHeaders, type WindowKind } from "./limits";
import { normalizeEmail } from "./suppressions";

/**
 * POST /email as a use case (CONTRACT.md "POST /email"): validation (steps
 * 1–13), the verified From domain (14), suppression (15), limits (16), then
 * durable acceptance in one transaction: the message, its recipients, one
 * `accepted` event per recipient (`rejected` for suppressed ones) and one
 * `deliver` job per recipient domain. Answers only after COMMIT.
 */

export interface SendDeps {
  database: Database;
  boss: PgBoss;
  log: Logger;
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

class AllSuppressed extends Error {}

class LimitRefused extends Error {
  constructor(readonly refused: WindowKind[]) {
    super("limit refused");
  }
}

export async function sendEmail(deps: SendDeps, key: AuthenticatedKey, body: unknown, options: SendOptions = {}): Promise<SendResult> {
  const now = options.now ?? nowSeconds();
  const refuse = async (errors: ApiErrorItem[]): Promise<SendResult> => ({ ok: false, errors, rateLimit: await currentHeaders(deps, key, now) });

  const v = validateEmailRequest(body);
  if (!v.ok) return refuse(v.errors);
  const content = v.content;

  if (!(await isVerifiedDomain(deps.database, key.accountId, emailDomain(content.from.email)))) return refuse([errorItem(32, "From.email")]);

  // Each address once (first occurrence wins), To before CC before BCC.
  const recipients: (ContentAddress & { kind: "to" | "cc" | "bcc"; normalized: string })[] = [];
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
  const headers = messageHeadersOf(messageId, content);
  try {
    const usages = await withTransaction(deps.database, async (tx) => {
      const c = tx.client;
      // One round trip: suppression check (step 15), the message and its recipients (a prepared statement).
      const { rows } = await c.query<{ id: number; email: string; reason: string | null }>({
        name: "mailroom_accept_message",
        text: `WITH r AS (
                 SELECT r.email, r.name, r.kind, r.n, s.reason
                 FROM unnest($13::text[], $14::text[], $15::text[], $16::text[]) WITH ORDINALITY AS r(email, name, kind, normalized, n)
                 LEFT JOIN suppressions s ON s.account_id = $2 AND s.email = r.normalized
               ), m AS (
                 INSERT INTO messages (id, account_id, api_key_id, from_email, from_domain, subject, headers, content, tags, size, transport, request_id)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                 RETURNING id
               ), ins AS (
                 INSERT INTO message_recipients (message_id, account_id, email, name, kind, status)
                 SELECT m.id, $2, r.email, r.name, r.kind, CASE WHEN r.reason IS NULL THEN 'queued' ELSE 'suppressed' END
                 FROM m, r ORDER BY r.n
                 RETURNING id, email
               )
               SELECT ins.id, ins.email, r.reason FROM ins JOIN r ON r.email = ins.email`,
        values: [
          messageId,
          key.accountId,
          key.keyId,
          content.from.email,
          emailDomain(content.from.email),
          content.subject,
          JSON.stringify(headers),
          JSON.stringify(content),
          content.tags,
          estimateMimeSize(content),
          options.transport ?? "api",
          options.requestId ?? null,
          recipients.map((r) => r.email),
          recipients.map((r) => r.name),
          recipients.map((r) => r.kind),
          recipients.map((r) => r.normalized),
        ],
      });
      // Recipients are unique (deduplicated above), so the email finds the row.
      const rowOf = new Map(rows.map((r) => [r.email, r]));
      const deliverable = recipients.filter((r) => rowOf.get(r.email)!.reason === null);
      if (deliverable.length === 0) throw new AllSuppressed();

      const events: NewEvent[] = recipients.map((r) => {
        const reason = rowOf.get(r.email)!.reason;
        return reason !== null
          ? {
              accountId: key.accountId,
              messageId,
              type: "rejected",
              recipient: r.email,
              reason: `Recipient is on the suppression list (${reason})`,
              loggedAt: now,
              details: { suppression: reason },
            }
          : { accountId: key.accountId, messageId, type: "accepted", recipient: r.email, reason: "", loggedAt: now };
      });
      await logEvents(tx, deps.boss, events);

      const byDomain = new Map<string, number[]>();
      for (const r of deliverable) {
        const d = emailDomain(r.email);
        byDomain.set(d, [...(byDomain.get(d) ?? []), rowOf.get(r.email)!.id]);
      }
      for (const recipientIds of byDomain.values()) {
        const job: DeliverJob = { messageId, recipientIds, ...(options.requestId && { requestId: options.requestId }) };
        await deps.boss.send(QUEUE.deliver, job as object, { db: tx.sql });
      }

      // Last, so that the counter rows stay locked only for the commit.
      const consumed = await consumeLimits(c, key.keyId, key.limits, deliverable.length, now);
      if (!consumed.ok) throw new LimitRefused(consumed.refused);
      return consumed.usages;
    });
    return { ok: true, messageId, rateLimit: rateLimitHeaders(usages, now) };
  } catch (err) {
    // Every recipient suppressed (step 15): nothing is stored, as no MessageID is given out.
    if (err instanceof AllSuppressed) return refuse([errorItem(14)]);
    if (!(err instanceof LimitRefused)) throw err;
    const w = refusingWindow(err.refused)!;
    return { ok: false, errors: [errorItem(w.code)], retryAfter: secondsToReset(w.kind, now), rateLimit: await currentHeaders(deps, key, now) };
  }
}

/** The X-RateLimit headers of a response that consumed nothing. */
export async function currentHeaders(deps: SendDeps, key: AuthenticatedKey, now: number): Promise<RateLimitHeaders | undefined> {
  if (key.limits.perMinute === null && key.limits.perHour === null && key.limits.perDay === null) return undefined;
  return rateLimitHeaders(await readUsage(deps.database.pool, key.keyId, key.limits, now), now);
}

// A verified domain stays verified: positive answers are cached briefly (like API keys).
const VERIFIED_CACHE_MS = 5_000;
const verifiedCache = new Map<string, number>();

async function isVerifiedDomain(database: Database, accountId: string, domain: string): Promise<boolean> {
  const ascii = domainToASCII(domain) || domain;
  const cacheKey = `${accountId}|${ascii}`;
  const now = Date.now();
  if ((verifiedCache.get(cacheKey) ?? 0) > now) return true;
  const { rows } = await database.pool.query(
    `SELECT 1 FROM sender_domains WHERE account_id = $1 AND name = ANY($2::text[]) AND status = 'verified' LIMIT 1`,
    [accountId, [...new Set([domain, ascii])]],
  );
  if (rows.length === 0) return false;
  if (verifiedCache.size > 10_000) verifiedCache.clear();
  verifiedCache.set(cacheKey, now + VERIFIED_CACHE_MS);
  return true;
}
