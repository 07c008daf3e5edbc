import type { AppContext } from "../../lib/context";
import { DELIVER_ENTRIES_SQL } from "../../lib/storage/deliver-entries-sql";
import type { TestApp } from "./test-app";
import { bearer } from "./fixtures";

/** POST /email through the real API; returns the MessageID. */
export async function sendViaApi(app: TestApp, apiKey: string, body: Record<string, unknown>): Promise<string> {
  const res = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(apiKey), body: JSON.stringify(body) });
  const json = (await res.json()) as { MessageID?: string; Errors?: unknown };
  if (res.status !== 200 || !json.MessageID) throw new Error(`POST /email answered ${res.status}: ${JSON.stringify(json)}`);
  return json.MessageID;
}

export interface EventRow {
  id: number;
  type: string;
  recipient: string;
  reason: string;
  url: string | null;
  ip: string | null;
  geo_country: string | null;
  details: Record<string, unknown> | null;
}

export async function eventsOf(ctx: AppContext, messageId: string): Promise<EventRow[]> {
  const { rows } = await ctx.database.pool.query<EventRow>(
    "SELECT id, type, recipient, reason, url, ip, geo_country, details FROM events WHERE message_id = $1 ORDER BY id",
    [messageId],
  );
  return rows;
}

/** Polls until `check` returns a value (not undefined) or the time runs out. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the message has an event of `type` for `recipient`. */
export async function waitForEvent(ctx: AppContext, messageId: string, type: string, recipient?: string, timeoutMs?: number): Promise<EventRow> {
  return waitFor(
    `${type} event of ${recipient ?? "the message"}`,
    async () => (await eventsOf(ctx, messageId)).find((e) => e.type === type && (!recipient || e.recipient === recipient)),
    timeoutMs,
  );
}

export function simpleEmail(to: string | string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    From: { name: "Shop", email: "shop@example.com" },
    To: (Array.isArray(to) ? to : [to]).map((email) => ({ name: "", email })),
    Subject: "Hello",
    ContentType: "HTML",
    HTMLContent: '<p>Hi <a href="https://example.org/welcome?a=1&amp;b=2">welcome</a></p>',
    PlainContent: "Hi",
    ...extra,
  };
}

/**
 * The end-of-file check of the delivery tests: every recipient of this
 * database reaches a final status. Waits (up to `timeoutMs`) for `queued`
 * recipients to be worked off, then fails if any is still `queued`, or if a
 * `deferred` one has no live `deliver` job left to retry it (stranded).
 */
export async function expectNoRecipientLeftQueued(ctx: AppContext, timeoutMs = 20_000): Promise<void> {
  const pool = ctx.database.pool;
  const queued = async () =>
    (await pool.query<{ email: string; status: string }>("SELECT email, status FROM message_recipients WHERE status = 'queued' ORDER BY id")).rows;
  const until = Date.now() + timeoutMs;
  while ((await queued()).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
  const { rows: stranded } = await pool.query<{ email: string; status: string }>(
    `SELECT r.email, r.status FROM message_recipients r
      WHERE r.status = 'deferred'
        AND NOT EXISTS (SELECT 1 FROM pgboss.job j, ${DELIVER_ENTRIES_SQL} AS e, jsonb_path_query(e, '$.recipientIds[*]') AS rid
                         WHERE j.name = 'deliver' AND j.state < 'completed' AND e->>'messageId' = r.message_id::text AND rid::text = r.id::text)`,
  );
  const left = [...(await queued()), ...stranded];
  if (left.length > 0) throw new Error(`recipients left without a final event: ${JSON.stringify(left)}`);
}

/** SQL condition: the deliver job `pgboss.job` row carries an entry of the message `$n` (docs/adr/0024). */
export function deliverJobHasMessage(param: string): string {
  return `jsonb_path_exists(data, '$.messages[*] ? (@.messageId == $id)', jsonb_build_object('id', ${param}::text))`;
}
