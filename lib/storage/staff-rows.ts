import { eq, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "./database";
import { staffInvitations, staffMemberships, staffUsers } from "./schema";

/**
 * The SQL text of staff users, memberships and invitations
 * (lib/domain/staff-users.ts and staff-invitations.ts decide what they mean;
 * plain reads and writes use the typed builder there).
 */

/** The value of `session_version` that ends a user's dashboard sessions (docs/adr/0507). */
export const nextSessionVersion = sql`${staffUsers.sessionVersion} + 1`;

/** How many staff users have the role admin. */
export async function countAdminRows(q: Queryable): Promise<number> {
  const [row] = await q.db
    .select({ n: sql<number>`count(*)::int` })
    .from(staffUsers)
    .where(eq(staffUsers.role, "admin"));
  return row?.n ?? 0;
}

/** A condition on accounts left-joined with one user's memberships: every account for an owner, else those they belong to. */
export function memberOrOwner(isOwner: boolean): SQL {
  return isOwner ? sql`true` : sql`${staffMemberships.userId} IS NOT NULL`;
}

/** A condition on staff_invitations: the invitation's account is not deleted. */
export const invitationAccountNotDeleted = sql`EXISTS (SELECT 1 FROM accounts a WHERE a.id = ${staffInvitations.accountId} AND a.status <> 'deleted')`;
