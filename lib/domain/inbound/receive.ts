import { randomUUID } from "node:crypto";
import { enqueueMany, type PgBoss } from "../../queue/boss";
import { inboundPostQueue } from "../../jobs/inbound-post";
import type { Database } from "../../storage/database";
import { addToByteCounters, deleteByteCountersBefore, lockByteCounters } from "../../storage/inbound-byte-counter-rows";
import {
  findRoutesByMatch,
  insertInboundMessages,
  isSenderDomain,
  markForRetry,
  wakeInboundPosting,
  type InboundRouteRow,
  type NewInboundMessage,
} from "../../storage/inbound-rows";
import { preparedSql } from "../../storage/prepared-sql";
import { withTransaction } from "../../storage/transaction";
import { admitClaims, budgetIdOf, budgetKeysOf, hourStartOf, type BudgetClaim, type BudgetKey, type BudgetScope, type ByteBudgets } from "./byte-budgets";
import { groupByRoute } from "./route-groups";
import { candidateMatches, parseAddress } from "./route-match";

/**
 * The receiving side of inbound routes (docs/contract.md §13.2): which route
 * an envelope recipient belongs to, and the commit of an accepted message
 * together with the jobs that post it, before the SMTP server answers 250
 * (docs/adr/0800): one row per route it reaches, listing that route's
 * recipients, one raw copy per transaction, within the byte budgets
 * (docs/adr/0807).
 */

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

/** One received message (one SMTP transaction) for routed recipients. */
export interface ReceivedMessage {
  raw: Buffer;
  recipients: RoutedRecipient[];
  envelope: ReceivedEnvelope;
  /** The client address as its byte budget counts it (IPv6: its /64). */
  addressKey: string;
}

/** A message stored (its rows' ids, one per route), or refused by the byte budget of its client address or an account. */
export type StoreOutcome = { ids: string[] } | { refused: BudgetKey };

const NO_RAW = Buffer.alloc(0);

/** One row per route of the transaction; the first holds the raw MIME, the others name it (same received_at: one day table). */
function rowsOfTransaction(m: ReceivedMessage, receivedAt: Date, expiresAt: Date): NewInboundMessage[] {
  let holder: string | undefined;
  return groupByRoute(m.recipients).map((group) => {
    const id = randomUUID();
    const rawOf = holder;
    holder ??= id;
    const first = group[0]!;
    return {
      id,
      accountId: first.route.account_id,
      routeId: first.route.id,
      webhookUrl: first.route.webhook_url,
      originalRecipient: first.address,
      mailboxHash: first.mailboxHash,
      recipients: group.map((r) => ({ Email: r.address, MailboxHash: r.mailboxHash })),
      mailFrom: m.envelope.mailFrom,
      remoteIp: m.envelope.remoteIp,
      helo: m.envelope.helo,
      size: m.raw.length,
      raw: rawOf ? NO_RAW : m.raw,
      rawOf,
      receivedAt,
      expiresAt,
    };
  });
}

/**
 * Commits the messages of concurrent SMTP sessions together (the inbound
 * server group-commits them), in one transaction: the byte counters of their
 * client addresses and accounts (locked, so that concurrent stores in any
 * process count in turn), then, for each message within its budgets, one row
 * per route and its posting job. A message past a budget stores nothing and
 * counts nothing.
 */
export async function storeInbound(
  deps: { database: Database; boss: PgBoss },
  messages: ReceivedMessage[],
  options: { retentionMs: number; budgets: ByteBudgets },
): Promise<StoreOutcome[]> {
  const receivedAt = new Date();
  const expiresAt = new Date(receivedAt.getTime() + options.retentionMs);
  const hour = hourStartOf(receivedAt.getTime());
  const claims: BudgetClaim[] = messages.map((m) => ({ bytes: m.raw.length, address: m.addressKey, accounts: m.recipients.map((r) => r.route.account_id) }));
  return withTransaction(deps.database, async (tx) => {
    const counters = await lockByteCounters(tx, hour, budgetKeysOf(claims, options.budgets));
    const used = new Map(counters.map((c) => [budgetIdOf({ scope: c.scope as BudgetScope, key: c.key }), c.bytes]));
    const { refused, added } = admitClaims(claims, used, options.budgets);
    await addToByteCounters(tx, hour, added);
    const perMessage = messages.map((m, i) => (refused[i] ? undefined : rowsOfTransaction(m, receivedAt, expiresAt)));
    const rows = perMessage.flatMap((r) => r ?? []);
    if (rows.length > 0) {
      await insertInboundMessages(tx, rows);
      await enqueueMany(
        deps.boss,
        inboundPostQueue,
        rows.map((r) => ({ payload: { inboundMessageId: r.id, attempts: 0, receivedAt: receivedAt.getTime() } })),
        // Prepared: pg-boss's insert planned on every commit cost as much as running it.
        preparedSql(tx),
      );
      await wakeInboundPosting(tx);
    }
    return perMessage.map((r, i): StoreOutcome => (r ? { ids: r.map((row) => row.id) } : { refused: refused[i]! }));
  });
}

/** Deletes the byte counters of the hours before the one of `nowMs` (the inbound server, once an hour). */
export function sweepByteCounters(database: Database, nowMs: number): Promise<number> {
  return deleteByteCountersBefore(database, hourStartOf(nowMs));
}

/**
 * POST .../retry: back to pending and posted again now; false when the
 * account has no such message. A message whose post is already due or
 * running is left to it (nothing enqueued): concurrent retries post once.
 */
export async function retryInbound(deps: { database: Database; boss: PgBoss }, accountId: string, id: string): Promise<boolean> {
  return withTransaction(deps.database, async (tx) => {
    const marked = await markForRetry(tx, accountId, id);
    if (marked === undefined) return false;
    if (!marked.marked) return true;
    const payload = { inboundMessageId: id, attempts: marked.attempts, receivedAt: marked.receivedAt.getTime() };
    await enqueueMany(deps.boss, inboundPostQueue, [{ payload }], preparedSql(tx));
    await wakeInboundPosting(tx);
    return true;
  });
}
