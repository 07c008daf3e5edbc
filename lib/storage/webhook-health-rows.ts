import type { Queryable } from "./database";

/**
 * The endpoint-health writes after a batch of webhook attempts
 * (lib/webhooks/endpoint-health.ts, docs/contract.md §16). Prepared: they run
 * after every batch of the dispatch hot path (docs/adr/0320).
 */

/** One webhook's outcome in a batch of attempts. */
export interface EndpointOutcomeRow {
  webhook_id: number;
  ok: boolean;
  gone: boolean;
  /** Start of the first failure after the batch's last success; null when the batch ends in success. */
  failed_from: string | null;
}

/** Sets or clears each webhook's failing_since; only a change of state writes. */
export async function writeFailingSince(q: Queryable, outcomes: EndpointOutcomeRow[]): Promise<void> {
  await q.query({
    name: "mailroom_webhook_failing_since",
    text: `UPDATE webhooks w
                SET failing_since = CASE WHEN l.ok THEN NULL ELSE l.failed_from END
               FROM jsonb_to_recordset($1::jsonb) AS l(webhook_id bigint, ok boolean, failed_from timestamptz)
              WHERE w.id = l.webhook_id AND (CASE WHEN l.ok THEN w.failing_since IS NOT NULL ELSE w.failing_since IS NULL END)`,
    values: [JSON.stringify(outcomes)],
  });
}

/**
 * Disables the enabled webhooks among `webhookIds` that answered 410 Gone
 * (`goneIds`) or have failed since longer than `disableAfterMs`; one
 * `UPDATE … WHERE status = 'Enabled'`, so exactly one writer sees each change.
 */
export async function disableFailingWebhooks(
  q: Queryable,
  webhookIds: number[],
  goneIds: number[],
  disableAfterMs: number,
): Promise<{ id: number; account_id: string; url: string; disabled_reason: string }[]> {
  const { rows } = await q.query<{ id: number; account_id: string; url: string; disabled_reason: string }>({
    name: "mailroom_webhook_disable",
    text: `UPDATE webhooks
                SET status = 'Disabled', disabled_at = now(), updated_at = now(),
                    disabled_reason = CASE WHEN id = ANY ($2::bigint[]) THEN 'The endpoint answered 410 Gone.'
                      ELSE 'Every attempt failed since ' || to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC.' END
              WHERE id = ANY ($1::bigint[]) AND status = 'Enabled'
                AND (id = ANY ($2::bigint[]) OR failing_since <= now() - $3 * interval '1 millisecond')
              RETURNING id, account_id, url, disabled_reason`,
    values: [webhookIds, goneIds, disableAfterMs],
  });
  return rows;
}
