import { createdInIdDays, idBounds } from "./day-partitions";
import type { Queryable } from "./database";

/** One recipient's outcome of a delivery round, as the rows store it. */
export interface RecipientOutcomeRow {
  recipientId: number;
  /** The recipient's new status. */
  status: "delivered" | "failed" | "rejected" | "deferred";
  reply: string;
  nextAttemptAt: Date | null;
  messageId: string;
  accountId: string;
  /** The attempt's own outcome (a deferral that gave up is status failed, outcome deferred). */
  outcome: string;
  smtpCode: number | null;
  enhancedCode: string | null;
  mxHost: string;
  durationMs: number;
  /** False when the copy never got the peer's decision (not tried): the recipient's attempts stay as they are. */
  attemptSpent: boolean;
  /** The attempt's TLS verdict (lib/delivery/tls-policy/tls-result.ts), when a session was tried. */
  tls?: object;
}

/** What a round learned about its message: its built size and its trackable links. */
export interface MessageFactsRow {
  messageId: string;
  size: number | null;
  links: string[] | null;
}

/**
 * One statement for a batch of rounds: each recipient's status (only if it is
 * still queued or deferred: another worker may have finished it), an attempt
 * row for each recipient that changed, and the messages' sizes and link
 * lists. Returns the ids of the recipients that changed. Prepared, with
 * column arrays through unnest (docs/adr/0320 measured why).
 */
export async function writeRoundRows(q: Queryable, outcomes: RecipientOutcomeRow[], facts: MessageFactsRow[], now: Date): Promise<Set<number>> {
  const { rows } = await q.query<{ id: number }>({
    name: "mailroom_record_rounds",
    text: `WITH i AS (
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::uuid[], $6::uuid[], $7::text[], $8::int[], $9::text[], $10::text[], $11::int[], $18::int[], $19::jsonb[])
         AS t(rid, status, reply, next_at, message_id, account_id, outcome, smtp_code, enhanced, mx, dur, spent, tls)
     ), u AS (
       UPDATE message_recipients r
          SET status = i.status, attempts = r.attempts + i.spent, last_reply = i.reply, last_attempt_at = $12, next_attempt_at = i.next_at, updated_at = $12
         FROM i
        WHERE r.id = i.rid AND r.status IN ('queued', 'deferred') AND r.id BETWEEN $16 AND $17 -- pruned to the ids' days (docs/adr/0043)
       RETURNING r.id
     ), a AS (
       INSERT INTO delivery_attempts (recipient_id, message_id, account_id, attempted_at, outcome, smtp_code, enhanced_code, reply, mx_host, duration_ms, tls)
       SELECT i.rid, i.message_id, i.account_id, $12, i.outcome, i.smtp_code, i.enhanced, i.reply, i.mx, i.dur, i.tls FROM i JOIN u ON u.id = i.rid
     ), s AS (
       UPDATE messages m SET size = COALESCE(v.size, m.size), tracked_links = COALESCE(m.tracked_links, v.links::jsonb)
         FROM unnest($13::uuid[], $14::int[], $15::text[]) AS v(id, size, links)
        WHERE m.id = v.id AND ${createdInIdDays("m.created_at", "$16::bigint", "$17::bigint")} -- the rounds' days (docs/adr/0044)
     )
     SELECT id FROM u`,
    values: [
      outcomes.map((o) => o.recipientId),
      outcomes.map((o) => o.status),
      outcomes.map((o) => o.reply),
      outcomes.map((o) => o.nextAttemptAt),
      outcomes.map((o) => o.messageId),
      outcomes.map((o) => o.accountId),
      outcomes.map((o) => o.outcome),
      outcomes.map((o) => o.smtpCode),
      outcomes.map((o) => o.enhancedCode),
      outcomes.map((o) => o.mxHost),
      outcomes.map((o) => o.durationMs),
      now,
      // unnest (estimated 10 rows), not jsonb_to_recordset (100): with it, PostgreSQL took 1.5–1.9 ms
      // of CPU per message in bench:e2e instead of 1.3–1.5 (docs/adr/0320; the plan itself not captured).
      facts.map((f) => f.messageId),
      facts.map((f) => f.size),
      facts.map((f) => (f.links ? JSON.stringify(f.links) : null)),
      ...idBounds(outcomes.map((o) => o.recipientId)),
      outcomes.map((o) => (o.attemptSpent ? 1 : 0)),
      outcomes.map((o) => (o.tls ? JSON.stringify(o.tls) : null)),
    ],
  });
  return new Set(rows.map((r) => Number(r.id)));
}
