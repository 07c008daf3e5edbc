import type { AppContext } from "../context";
import { sendEmail } from "../domain/sending/send-email";
import { accountAdmins, systemSender } from "../domain/accounts/system-sender";
import { webhookDisabledEmail } from "../domain/webhooks/webhook-disabled-email";
import type { Database } from "../storage/database";
import { holdNotifications } from "../storage/notification-rows";
import { withTransaction } from "../storage/transaction";
import { disableFailingWebhooks, writeFailingSince, type EndpointOutcomeRow } from "../storage/webhook-health-rows";
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

function outcomesOf(records: AttemptRecord[]): EndpointOutcomeRow[] {
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
    await writeFailingSince(tx, outcomes);
    if (candidates.length === 0) return [];
    const gone = candidates.filter((o) => o.gone).map((o) => o.webhook_id);
    const rows = await disableFailingWebhooks(
      tx,
      candidates.map((o) => o.webhook_id),
      gone,
      disableAfterMs,
    );
    if (rows.length === 0) return [];
    await holdNotifications(tx, rows.map((r) => r.id));
    return rows.map((r) => ({ webhookId: Number(r.id), accountId: r.account_id, url: r.url, reason: r.disabled_reason }));
  });
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
