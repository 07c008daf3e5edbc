import { and, asc, eq, gt, isNull, sql } from "drizzle-orm";
import { accountNotDeleted } from "./account-rows";
import type { Queryable } from "./database";
import { accounts, staffInvitations } from "./schema";

/** The reads and writes of staff invitations (lib/domain/staff/staff-invitations.ts decides what they mean). */

export type InvitationRow = typeof staffInvitations.$inferSelect;

/** A condition on staff_invitations: the invitation's account is not deleted. */
const invitationAccountNotDeleted = sql`EXISTS (SELECT 1 FROM accounts a WHERE a.id = ${staffInvitations.accountId} AND a.status <> 'deleted')`;

/** Deletes the account's pending (not accepted) invitation of the address, if any. */
export async function deletePendingInvitationOf(q: Queryable, accountId: string, email: string): Promise<void> {
  await q.db.delete(staffInvitations).where(and(eq(staffInvitations.accountId, accountId), eq(staffInvitations.email, email), isNull(staffInvitations.acceptedAt)));
}

export async function insertInvitationRow(q: Queryable, values: typeof staffInvitations.$inferInsert): Promise<InvitationRow> {
  const [row] = await q.db.insert(staffInvitations).values(values).returning();
  return row!;
}

/** The account's invitations not accepted yet, by address. */
export async function selectPendingInvitationRows(q: Queryable, accountId: string): Promise<InvitationRow[]> {
  return q.db
    .select()
    .from(staffInvitations)
    .where(and(eq(staffInvitations.accountId, accountId), isNull(staffInvitations.acceptedAt)))
    .orderBy(asc(staffInvitations.email));
}

/** Deletes a pending invitation of the account; false when there is none with that id. */
export async function deletePendingInvitation(q: Queryable, accountId: string, invitationId: string): Promise<boolean> {
  const removed = await q.db
    .delete(staffInvitations)
    .where(and(eq(staffInvitations.id, invitationId), eq(staffInvitations.accountId, accountId), isNull(staffInvitations.acceptedAt)))
    .returning({ id: staffInvitations.id });
  return removed.length > 0;
}

/** The invitation of a token hash not accepted, not expired at `now`, its account not deleted, with the account's name. */
export async function selectOpenInvitationRow(q: Queryable, tokenHash: string, now: Date): Promise<{ invitation: InvitationRow; accountName: string } | undefined> {
  const [row] = await q.db
    .select({ invitation: staffInvitations, accountName: accounts.name })
    .from(staffInvitations)
    .innerJoin(accounts, eq(accounts.id, staffInvitations.accountId))
    .where(and(eq(staffInvitations.tokenHash, tokenHash), isNull(staffInvitations.acceptedAt), gt(staffInvitations.expiresAt, now), accountNotDeleted));
  return row;
}

/** Marks the open invitation of a token hash accepted at `now` (the update is the check); undefined when none is open. */
export async function markInvitationAccepted(q: Queryable, tokenHash: string, now: Date): Promise<InvitationRow | undefined> {
  const [row] = await q.db
    .update(staffInvitations)
    .set({ acceptedAt: now })
    .where(and(eq(staffInvitations.tokenHash, tokenHash), isNull(staffInvitations.acceptedAt), gt(staffInvitations.expiresAt, now), invitationAccountNotDeleted))
    .returning();
  return row;
}
