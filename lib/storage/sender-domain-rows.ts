import { and, asc, eq, gt, isNotNull, ne } from "drizzle-orm";
import type { Queryable } from "./database";
import { senderDomains } from "./schema";

/** The reads and writes of sender domains (lib/domain/accounts/sender-domains.ts decides what they mean; verified-domain-rows.ts, the send path's check). */

export type SenderDomainRow = typeof senderDomains.$inferSelect;

/** A new sender domain; undefined when the account has one of that name. */
export async function insertSenderDomainIfAbsent(q: Queryable, values: typeof senderDomains.$inferInsert): Promise<SenderDomainRow | undefined> {
  const [row] = await q.db.insert(senderDomains).values(values).onConflictDoNothing().returning();
  return row;
}

/** The account's sender domains, by name. */
export async function selectSenderDomainRows(q: Queryable, accountId: string): Promise<SenderDomainRow[]> {
  return q.db.select().from(senderDomains).where(eq(senderDomains.accountId, accountId)).orderBy(asc(senderDomains.name));
}

/** `name` normalised. */
export async function selectSenderDomainRow(q: Queryable, accountId: string, name: string): Promise<SenderDomainRow | undefined> {
  const [row] = await q.db
    .select()
    .from(senderDomains)
    .where(and(eq(senderDomains.accountId, accountId), eq(senderDomains.name, name)));
  return row;
}

export async function markSenderDomainVerified(q: Queryable, domainId: string): Promise<SenderDomainRow | undefined> {
  const [row] = await q.db
    .update(senderDomains)
    .set({ status: "verified", verifiedAt: new Date() })
    .where(eq(senderDomains.id, domainId))
    .returning();
  return row;
}

/** Deletes the account's domain of that name; whether there was one. */
export async function deleteSenderDomainRow(q: Queryable, accountId: string, name: string): Promise<boolean> {
  const rows = await q.db
    .delete(senderDomains)
    .where(and(eq(senderDomains.accountId, accountId), eq(senderDomains.name, name)))
    .returning({ id: senderDomains.id });
  return rows.length > 0;
}

/** Every sender domain of the instance, by id (the daily health run). */
export async function selectSenderDomainPage(q: Queryable, afterId: string | null, limit: number): Promise<SenderDomainRow[]> {
  return q.db
    .select()
    .from(senderDomains)
    .where(afterId ? gt(senderDomains.id, afterId) : undefined)
    .orderBy(asc(senderDomains.id))
    .limit(limit);
}

/** A partial update of one domain's row (health, rotation, tracking); the row after it. */
export async function updateSenderDomainRow(
  q: Queryable,
  domainId: string,
  values: Partial<Omit<typeof senderDomains.$inferInsert, "id" | "accountId" | "name">>,
): Promise<SenderDomainRow | undefined> {
  const [row] = await q.db.update(senderDomains).set(values).where(eq(senderDomains.id, domainId)).returning();
  return row;
}

/** The verified tracking domain's sender domain, for the tracking routes' Host (migration 1013). */
export async function selectSenderDomainByTrackingHost(q: Queryable, host: string): Promise<SenderDomainRow | undefined> {
  const [row] = await q.db
    .select()
    .from(senderDomains)
    .where(and(eq(senderDomains.trackingDomain, host), isNotNull(senderDomains.trackingVerifiedAt)));
  return row;
}

/** Another domain (of any account) already claims `host` as its tracking domain. */
export async function trackingHostTaken(q: Queryable, host: string, exceptDomainId: string): Promise<boolean> {
  const rows = await q.db
    .select({ id: senderDomains.id })
    .from(senderDomains)
    .where(and(eq(senderDomains.trackingDomain, host), ne(senderDomains.id, exceptDomainId)));
  return rows.length > 0;
}
