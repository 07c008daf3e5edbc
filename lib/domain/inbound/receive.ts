import { randomUUID } from "node:crypto";
import { enqueueMany, type PgBoss } from "../../queue/boss";
import { inboundPostQueue } from "../../jobs/inbound-post";
import type { Database } from "../../storage/database";
import {
  findRoutesByMatch,
  INBOUND_WAKE_CHANNEL,
  insertInboundMessages,
  isSenderDomain,
  markForRetry,
  wakeInboundPosting,
  type InboundRouteRow,
} from "../../storage/inbound-rows";
import { preparedSql } from "../../storage/prepared-sql";
import { withTransaction } from "../../storage/transaction";
import { candidateMatches, parseAddress } from "./route-match";

/**
 * The receiving side of inbound routes (docs/contract.md §13.2): which route
 * an envelope recipient belongs to, and the commit of an accepted message
 * (one row per accepted recipient, raw MIME included) together with the jobs
 * that post it, before the SMTP server answers 250 (docs/adr/0800).
 */

/** Channel that wakes the posting loops when a message is committed (NOTIFY is transactional). */
export { INBOUND_WAKE_CHANNEL };

export interface RoutedRecipient {
  address: string;
  route: InboundRouteRow;
  mailboxHash: string;
}

/** The route of an envelope recipient (exact beats domain; `+tag` reported as MailboxHash), or undefined. */
export async function routeOf(database: Database, address: string): Promise<RoutedRecipient | undefined> {
  const candidates = candidateMatches(address);
  const routes = await findRoutesByMatch(database, candidates.map((c) => c.match));
  for (const c of candidates) {
    const route = routes.find((r) => r.match === c.match);
    if (route) return { address, route, mailboxHash: c.mailboxHash };
  }
  return undefined;
}

/**
 * Whether a recipient without a route is an address where reports arrive:
 * the configured bounce domain, or `bounces.<a sending domain>` (the MX that
 * docs/contract.md tells operators to publish for VERP return paths).
 */
export async function isReportAddress(database: Database, address: string, bounceDomain: string | undefined): Promise<boolean> {
  const p = parseAddress(address);
  if (!p) return false;
  if (bounceDomain && p.domain === bounceDomain.toLowerCase()) return true;
  return p.domain.startsWith("bounces.") && (await isSenderDomain(database, p.domain.slice("bounces.".length)));
}

export interface ReceivedEnvelope {
  mailFrom: string;
  remoteIp: string;
  helo: string;
}

/** One received message for routed recipients. */
export interface ReceivedMessage {
  raw: Buffer;
  recipients: RoutedRecipient[];
  envelope: ReceivedEnvelope;
}

/**
 * Commits the messages of concurrent SMTP sessions together (the inbound
 * server group-commits them): one row per routed recipient and its posting
 * job, in one transaction. Returns each message's new row ids.
 */
export async function storeInbound(deps: { database: Database; boss: PgBoss }, messages: ReceivedMessage[], retentionMs: number): Promise<string[][]> {
  const receivedAt = new Date();
  const expiresAt = new Date(receivedAt.getTime() + retentionMs);
  const perMessage = messages.map((m) =>
    m.recipients.map((r) => ({
      id: randomUUID(),
      accountId: r.route.account_id,
      routeId: r.route.id,
      webhookUrl: r.route.webhook_url,
      originalRecipient: r.address,
      mailboxHash: r.mailboxHash,
      mailFrom: m.envelope.mailFrom,
      remoteIp: m.envelope.remoteIp,
      helo: m.envelope.helo,
      raw: m.raw,
      receivedAt,
      expiresAt,
    })),
  );
  const rows = perMessage.flat();
  await withTransaction(deps.database, async (tx) => {
    await insertInboundMessages(tx, rows);
    await enqueueMany(
      deps.boss,
      inboundPostQueue,
      rows.map((r) => ({ payload: { inboundMessageId: r.id, attempts: 0, receivedAt: receivedAt.getTime() } })),
      // Prepared: pg-boss's insert planned on every commit cost as much as running it.
      preparedSql(tx),
    );
    await wakeInboundPosting(tx);
  });
  return perMessage.map((list) => list.map((r) => r.id));
}

/** POST .../retry: back to pending and posted again now; false when the account has no such message. */
export async function retryInbound(deps: { database: Database; boss: PgBoss }, accountId: string, id: string): Promise<boolean> {
  return withTransaction(deps.database, async (tx) => {
    const marked = await markForRetry(tx, accountId, id);
    if (marked === undefined) return false;
    const payload = { inboundMessageId: id, attempts: marked.attempts, receivedAt: marked.receivedAt.getTime() };
    await enqueueMany(deps.boss, inboundPostQueue, [{ payload }], preparedSql(tx));
    await wakeInboundPosting(tx);
    return true;
  });
}
