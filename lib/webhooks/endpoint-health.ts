import type { AppContext } from "../context";
import { sendEmail } from "../domain/send-email";
import { accountAdmins, systemSender } from "../domain/system-sender";
import { webhookDisabledEmail } from "../domain/webhook-disabled-email";
import type { Database } from "../storage/database";
import { withTransaction } from "../storage/transaction";
import type { AttemptRecord } from "./notification-store";

/**
 * Endpoints that keep failing (docs/contract.md §16, ADR 0410). After each
 * batch of attempts: a webhook's `failing_since` is the start of its first
 * failed attempt since its last 2xx; a 410 Gone, or a failed attempt when
 * failing_since is older than MAILROOM_WEBHOOK_DISABLE_AFTER, disables it.
 * Disabling is one `UPDATE … WHERE status = 'Enabled'`, so exactly one
 * writer sees the change and tells the admins; the webhook's pending
 * notifications are held in the same transaction (kept, not sent).
 */

export interface DisabledWebhook {
  webhookId: number;
  accountId: string;
  url: string;
  reason: string;
}

interface Outcome {
  webhook_id: number;
  ok: boolean;
  gone: boolean;
  /** Start of the first failure after the batch's last success; null when the batch ends in success. */
  failed_from: string | null;
}

function outcomesOf(records: AttemptRecord[]): Outcome[] {
  const byWebhook = new Map<number, AttemptRecord[]>();
  for (const r of records) if (!r.notSent) byWebhook.set(r.webhookId, [...(byWebhook.get(r.webhookId) ?? []), r]);
  return [...byWebhook].map(([webhookId, rs]) => {
    rs.sort((a, b) => a.endedAt.getTime() - b.endedAt.getTime());
    const lastOk = rs.findLastIndex((r) => isSuccess(r.statusCode));
    const failures = rs.slice(lastOk + 1);
    return {
      webhook_id: webhookId,
      ok: failures.length === 0,
      gone: rs.some((r) => r.statusCode === 410),
      failed_from: failures[0]?.startedAt.toISOString() ?? null,
    };
  });
}

const isSuccess = (code: number) => code >= 200 && code < 300;

export async function noteEndpointHealth(database: Database, records: AttemptRecord[], disableAfterMs: number): Promise<DisabledWebhook[]> {
  const outcomes = outcomesOf(records);
  if (outcomes.length === 0) return [];
  const candidates = outcomes.filter((o) => !o.ok || o.gone);
  return withTransaction(database, async (tx) => {
    // Only a change of state writes: an endpoint that keeps answering 2xx (or keeps failing) costs no row update.
    await tx.client.query({
      name: "mailroom_webhook_failing_since",
      text: `UPDATE webhooks w
                SET failing_since = CASE WHEN l.ok THEN NULL ELSE l.failed_from END
               FROM jsonb_to_recordset($1::jsonb) AS l(webhook_id bigint, ok boolean, failed_from timestamptz)
              WHERE w.id = l.webhook_id AND (CASE WHEN l.ok THEN w.failing_since IS NOT NULL ELSE w.failing_since IS NULL END)`,
      values: [JSON.stringify(outcomes)],
    });
    if (candidates.length === 0) return [];
    const gone = candidates.filter((o) => o.gone).map((o) => o.webhook_id);
    const { rows } = await tx.client.query<{ id: number; account_id: string; url: string; disabled_reason: string }>({
      name: "mailroom_webhook_disable",
      text: `UPDATE webhooks
                SET status = 'Disabled', disabled_at = now(), updated_at = now(),
                    disabled_reason = CASE WHEN id = ANY ($2::bigint[]) THEN 'The endpoint answered 410 Gone.'
                      ELSE 'Every attempt failed since ' || to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC.' END
              WHERE id = ANY ($1::bigint[]) AND status = 'Enabled'
                AND (id = ANY ($2::bigint[]) OR failing_since <= now() - $3 * interval '1 millisecond')
              RETURNING id, account_id, url, disabled_reason`,
      values: [candidates.map((o) => o.webhook_id), gone, disableAfterMs],
    });
    if (rows.length === 0) return [];
    await holdNotifications(tx.client, rows.map((r) => r.id));
    return rows.map((r) => ({ webhookId: Number(r.id), accountId: r.account_id, url: r.url, reason: r.disabled_reason }));
  });
}

/** A disabled webhook's pending notifications are kept, not sent; completed_at starts their retention period. */
export async function holdNotifications(client: { query: Database["pool"]["query"] }, webhookIds: number[]): Promise<void> {
  await client.query(
    `UPDATE webhook_notifications SET status = 'held', completed_at = now(), single_attempt = false
      WHERE webhook_id = ANY ($1::bigint[]) AND status = 'pending'`,
    [webhookIds],
  );
}

/**
 * Tells each disabled webhook's account admins by email, through the
 * instance's own sending path as the default account (ADR 0512). Never
 * throws: an email that cannot be sent is logged (the dashboard's banner
 * still shows the webhook as disabled).
 */
export async function tellAdmins(ctx: AppContext, disabled: DisabledWebhook[]): Promise<void> {
  for (const d of disabled) {
    ctx.log.warn({ webhookId: d.webhookId, accountId: d.accountId, reason: d.reason }, "webhook disabled");
    try {
      const sender = await systemSender(ctx.database, ctx.config.auth.invitationFrom);
      if (!sender) {
        ctx.log.warn({ webhookId: d.webhookId }, "webhook disabled; its admins are not emailed: no default account key or From address (MAILROOM_INVITATION_FROM)");
        continue;
      }
      const { accountName, emails } = await accountAdmins(ctx.database, d.accountId);
      for (const to of emails) {
        const body = webhookDisabledEmail({
          from: sender.from,
          to,
          accountName,
          webhookId: d.webhookId,
          url: d.url,
          reason: d.reason,
          dashboardLink: `${ctx.publicUrl}/a/${d.accountId}/webhooks`,
        });
        const result = await sendEmail(ctx, sender.key, body);
        if (!result.ok) ctx.log.warn({ webhookId: d.webhookId, to, errors: result.errors }, "the webhook-disabled email was refused");
      }
    } catch (err) {
      ctx.log.error({ err, webhookId: d.webhookId }, "telling the admins of a disabled webhook failed");
    }
  }
}
