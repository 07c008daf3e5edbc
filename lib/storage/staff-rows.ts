import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { StaffRole } from "../contract/staff-roles";
import { accountNotDeleted } from "./account-rows";
import type { Queryable } from "./database";
import { accounts, staffMemberships, staffUsers } from "./schema";

/**
 * The reads and writes of staff users and their memberships
 * (lib/domain/staff/staff-users.ts decides what they mean; invitations:
 * invitation-rows.ts).
 */

export type StaffUserRow = typeof staffUsers.$inferSelect;

/** What a change of a user may set; `endSessions` also ends their dashboard sessions (session_version + 1, docs/adr/0507). */
export type StaffUserChange = Partial<Pick<StaffUserRow, "role" | "passwordHash" | "mustChangePassword" | "isOwner" | "lastLoginAt">> & { endSessions?: boolean };

function changeOf({ endSessions, ...set }: StaffUserChange) {
  return endSessions ? { ...set, sessionVersion: sql`${staffUsers.sessionVersion} + 1` } : set;
}

/** How many staff users have the role admin. */
export async function countAdminRows(q: Queryable): Promise<number> {
  const [row] = await q.db
    .select({ n: sql<number>`count(*)::int` })
    .from(staffUsers)
    .where(eq(staffUsers.role, "admin"));
  return row?.n ?? 0;
}

/** `email` as stored (lowercased). */
export async function selectStaffUserByEmail(q: Queryable, email: string): Promise<StaffUserRow | undefined> {
  const [row] = await q.db.select().from(staffUsers).where(eq(staffUsers.email, email));
  return row;
}

/** `id` a UUID (the column's type). */
export async function selectStaffUserById(q: Queryable, id: string): Promise<StaffUserRow | undefined> {
  const [row] = await q.db.select().from(staffUsers).where(eq(staffUsers.id, id));
  return row;
}

/** Every staff user, by email. */
export async function selectStaffUserRows(q: Queryable): Promise<StaffUserRow[]> {
  return q.db.select().from(staffUsers).orderBy(asc(staffUsers.email));
}

/** A new staff user; undefined when one with that email exists. */
export async function insertStaffUserRow(q: Queryable, values: typeof staffUsers.$inferInsert): Promise<StaffUserRow | undefined> {
  const [row] = await q.db.insert(staffUsers).values(values).onConflictDoNothing().returning();
  return row;
}

/** Undefined when no user has that email. */
export async function updateStaffUserByEmail(q: Queryable, email: string, change: StaffUserChange): Promise<StaffUserRow | undefined> {
  const [row] = await q.db.update(staffUsers).set(changeOf(change)).where(eq(staffUsers.email, email)).returning();
  return row;
}

/** Undefined when there is no such user. */
export async function updateStaffUserById(q: Queryable, id: string, change: StaffUserChange): Promise<StaffUserRow | undefined> {
  const [row] = await q.db.update(staffUsers).set(changeOf(change)).where(eq(staffUsers.id, id)).returning();
  return row;
}

export async function deleteStaffUserRow(q: Queryable, id: string): Promise<void> {
  await q.db.delete(staffUsers).where(eq(staffUsers.id, id));
}

/** A new membership; with `ifAbsent`, one the user has already is left as it is. */
export async function insertMembershipRow(q: Queryable, membership: { userId: string; accountId: string; role: StaffRole }, options: { ifAbsent?: boolean } = {}): Promise<void> {
  const insert = q.db.insert(staffMemberships).values(membership);
  await (options.ifAbsent ? insert.onConflictDoNothing() : insert);
}

/** The membership with `role`, made or changed. */
export async function upsertMembershipRow(q: Queryable, userId: string, accountId: string, role: StaffRole): Promise<void> {
  await q.db
    .insert(staffMemberships)
    .values({ userId, accountId, role })
    .onConflictDoUpdate({ target: [staffMemberships.userId, staffMemberships.accountId], set: { role } });
}

/** The user's role in the account, undefined when not a member. */
export async function selectMembershipRole(q: Queryable, userId: string, accountId: string): Promise<StaffRole | undefined> {
  const [row] = await q.db
    .select({ role: staffMemberships.role })
    .from(staffMemberships)
    .where(and(eq(staffMemberships.userId, userId), eq(staffMemberships.accountId, accountId)));
  return row?.role;
}

/** True when there was such a membership. */
export async function deleteMembershipRow(q: Queryable, userId: string, accountId: string): Promise<boolean> {
  const removed = await q.db
    .delete(staffMemberships)
    .where(and(eq(staffMemberships.userId, userId), eq(staffMemberships.accountId, accountId)))
    .returning();
  return removed.length > 0;
}

/** The role in every account the user belongs to. */
export async function setRoleInEveryMembership(q: Queryable, userId: string, role: StaffRole): Promise<void> {
  await q.db.update(staffMemberships).set({ role }).where(eq(staffMemberships.userId, userId));
}

/** The ids of the account's members. */
export async function selectMemberIds(q: Queryable, accountId: string): Promise<string[]> {
  const rows = await q.db.select({ userId: staffMemberships.userId }).from(staffMemberships).where(eq(staffMemberships.accountId, accountId));
  return rows.map((r) => r.userId);
}

/** The ids of the account's admin members. */
export async function selectAccountAdminIds(q: Queryable, accountId: string): Promise<string[]> {
  const rows = await q.db
    .select({ userId: staffMemberships.userId })
    .from(staffMemberships)
    .where(and(eq(staffMemberships.accountId, accountId), eq(staffMemberships.role, "admin")));
  return rows.map((r) => r.userId);
}

/** The emails of the account's admin members, in order. */
export async function selectAccountAdminEmails(q: Queryable, accountId: string): Promise<string[]> {
  const rows = await q.db
    .select({ email: staffUsers.email })
    .from(staffMemberships)
    .innerJoin(staffUsers, eq(staffUsers.id, staffMemberships.userId))
    .where(and(eq(staffMemberships.accountId, accountId), eq(staffMemberships.role, "admin")))
    .orderBy(asc(staffUsers.email));
  return rows.map((r) => r.email);
}

export interface MembershipRow {
  userId: string;
  accountId: string;
  accountName: string;
  role: StaffRole;
}

/** The memberships of these users in accounts not deleted, by account name. */
export async function selectMembershipsOf(q: Queryable, userIds: string[]): Promise<MembershipRow[]> {
  return q.db
    .select({ userId: staffMemberships.userId, accountId: staffMemberships.accountId, accountName: accounts.name, role: staffMemberships.role })
    .from(staffMemberships)
    .innerJoin(accounts, eq(accounts.id, staffMemberships.accountId))
    .where(and(userIds.length === 1 ? eq(staffMemberships.userId, userIds[0]!) : inArray(staffMemberships.userId, userIds), accountNotDeleted))
    .orderBy(asc(accounts.name), asc(accounts.id));
}

/** Accounts not deleted, by name, with the user's role in each (null where not a member): an owner's all of them, else their memberships'. */
export async function selectAccountsVisibleTo(q: Queryable, userId: string, isOwner: boolean) {
  return q.db
    .select({
      accountId: accounts.id,
      accountName: accounts.name,
      isDefault: accounts.isDefault,
      status: accounts.status,
      role: staffMemberships.role,
    })
    .from(accounts)
    .leftJoin(staffMemberships, and(eq(staffMemberships.accountId, accounts.id), eq(staffMemberships.userId, userId)))
    .where(and(accountNotDeleted, isOwner ? sql`true` : sql`${staffMemberships.userId} IS NOT NULL`))
    .orderBy(asc(accounts.name), asc(accounts.id));
}
