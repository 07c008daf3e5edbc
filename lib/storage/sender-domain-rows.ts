import { and, asc, eq } from "drizzle-orm";
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
