import { hash, verify } from "@node-rs/argon2";
import { selectAccountRow } from "../../storage/account-rows";
import { lockForTransaction } from "../../storage/advisory-lock-rows";
import type { Database, Queryable } from "../../storage/database";
import { STAFF_ROLES, type StaffRole } from "../../contract/staff-roles";
import {
  countAdminRows,
  deleteMembershipRow,
  deleteStaffUserRow,
  insertMembershipRow,
  insertStaffUserRow,
  selectAccountAdminIds,
  selectAccountsVisibleTo,
  selectMemberIds,
  selectMembershipRole,
  selectMembershipsOf,
  selectStaffUserByEmail,
  selectStaffUserById,
  selectStaffUserRows,
  setRoleInEveryMembership,
  updateStaffUserByEmail,
  updateStaffUserById,
  upsertMembershipRow,
  type StaffUserRow,
} from "../../storage/staff-rows";
import { withTransaction, type Tx } from "../../storage/transaction";
import { getDefaultAccount, isUuid } from "../accounts/accounts";
import { DomainError } from "../shared/domain-error";
import { pick } from "../shared/pick";
import { looksLikeEmailAddress } from "../../contract/plausible-email";

/**
 * Staff users of the dashboard (roles admin, support, marketing: docs/ARCHITECTURE.md, "The dashboard").
 * Passwords are hashed with argon2id (the library's default algorithm and its
 * OWASP-recommended costs: 19 MiB, 2 passes). Emails are stored lowercased.
 * There is always at least one admin: removing or demoting the last one is
 * refused, under a lock so that two concurrent changes cannot both pass.
 *
 * Membership (ADR 0510): a user belongs to accounts with a role in each
 * (staff_memberships); `isOwner` marks instance operators, who see every
 * account. The user's own `role` is the one they were added with: without
 * an account they become a member of the default account with it.
 */

export const MIN_PASSWORD_LENGTH = 8;

export interface StaffUser {
  id: string;
  email: string;
  name: string;
  role: StaffRole;
  createdAt: Date;
  lastLoginAt: Date | null;
  /** The password was generated for the user (first start, CLI); cleared when they choose their own. */
  mustChangePassword: boolean;
  /** An instance operator: sees every account (as admin) and manages accounts. */
  isOwner: boolean;
  /** Carried in the user's dashboard sessions; incremented to end them (endsSessions, docs/adr/0507). */
  sessionVersion: number;
}

export interface Membership {
  accountId: string;
  accountName: string;
  role: StaffRole;
}

export interface StaffUserWithMemberships extends StaffUser {
  memberships: Membership[];
}

type StaffRow = StaffUserRow;

// Serialises changes that could leave the install without an admin.
const ADMIN_LOCK_ID = 727_200;

export function normalizeStaffEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function isStaffRole(value: string): value is StaffRole {
  return (STAFF_ROLES as readonly string[]).includes(value);
}

export function parseStaffRole(value: string): StaffRole {
  const role = value.trim().toLowerCase();
  if (!isStaffRole(role)) throw new DomainError(`Unknown role "${value}": use admin, support or marketing`);
  return role;
}

export function requireEmail(raw: string): string {
  const email = normalizeStaffEmail(raw);
  if (email.length > 254 || !looksLikeEmailAddress(email)) throw new DomainError(`"${raw}" is not an email address`);
  return email;
}

function requirePassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new DomainError(`A password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  }
}

export function hashStaffPassword(password: string): Promise<string> {
  return hash(password);
}

const USER_MEMBERS = ["id", "email", "name", "role", "createdAt", "lastLoginAt", "mustChangePassword", "isOwner", "sessionVersion"] as const;

function toStaffUser(r: StaffRow): StaffUser {
  return pick(r, USER_MEMBERS);
}

/**
 * Spread into a change of a staff user: ends the user's dashboard sessions
 * (docs/adr/0507-session-version.md). Every change of what a user may do or
 * of how they prove who they are carries it: a password set or changed, a
 * role, a membership revoked, the owner flag, and "sign out everywhere".
 */
const endsSessions = { endSessions: true } as const;

/** "Sign out everywhere": ends every dashboard session of the user (CLI, the dashboard). */
export async function endStaffSessions(q: Queryable, rawEmail: string): Promise<StaffUser> {
  const email = normalizeStaffEmail(rawEmail);
  const row = await updateStaffUserByEmail(q, email, endsSessions);
  if (!row) throw new DomainError(`No staff user with the email ${email}`);
  return toStaffUser(row);
}

export async function addStaffUser(
  q: Queryable,
  input: {
    email: string;
    role: string;
    password: string;
    name?: string;
    mustChangePassword?: boolean;
    /** Member of this account with `role`; default: the default account (none when there is none yet). */
    accountId?: string;
    owner?: boolean;
  },
): Promise<StaffUser> {
  const email = requireEmail(input.email);
  const role = parseStaffRole(input.role);
  requirePassword(input.password);
  const account = input.accountId === undefined ? await getDefaultAccount(q) : await requireMemberAccount(q, input.accountId);
  const passwordHash = await hashStaffPassword(input.password);
  const row = await insertStaffUserRow(q, {
    email,
    role,
    passwordHash,
    name: input.name?.trim() ?? "",
    mustChangePassword: input.mustChangePassword ?? false,
    isOwner: input.owner ?? false,
  });
  if (!row) throw new DomainError(`A staff user with the email ${email} already exists`);
  if (account) await insertMembershipRow(q, { userId: row.id, accountId: account.id, role });
  return toStaffUser(row);
}

/**
 * A staff user made by a single sign-on (ADR 0511): an identity the OIDC
 * allow-list admits, with no password (the stored "!" is no argon2 hash, so
 * no password ever verifies) and no account membership until one is granted
 * (an invitation accepted, an owner, the CLI). `role` is the one they are
 * recorded with (AUTH_OIDC_ROLE); it opens nothing by itself. An existing
 * user with that email is returned as it is.
 */
export async function addSsoStaffUser(q: Queryable, input: { email: string; role: string; name?: string }): Promise<StaffUser> {
  const email = requireEmail(input.email);
  const role = parseStaffRole(input.role);
  const row = await insertStaffUserRow(q, { email, role, passwordHash: NO_PASSWORD, name: input.name?.trim().slice(0, 100) ?? "" });
  if (row) return toStaffUser(row);
  return toStaffUser(await requireUser(q, email));
}

/** Never a valid argon2 hash: a user stored with it has no password (single sign-on only, until one is set). */
export const NO_PASSWORD = "!";

/** Records a sign-in that did not go through verifyStaffPassword (single sign-on). */
export async function recordStaffSignIn(q: Queryable, rawEmail: string): Promise<void> {
  await updateStaffUserByEmail(q, normalizeStaffEmail(rawEmail), { lastLoginAt: new Date() });
}

export async function requireMemberAccount(q: Queryable, accountId: string): Promise<{ id: string; name: string }> {
  const row = isUuid(accountId) ? await selectAccountRow(q, accountId) : undefined;
  if (!row || row.status === "deleted") throw new DomainError(`No account with the id ${accountId}`);
  return { id: row.id, name: row.name };
}

async function requireUser(q: Queryable, rawEmail: string): Promise<StaffRow> {
  const email = normalizeStaffEmail(rawEmail);
  const row = await selectStaffUserByEmail(q, email);
  if (!row) throw new DomainError(`No staff user with the email ${email}`);
  return row;
}

/** Makes the user a member of the account with `role` (or changes their role there). */
export async function grantMembership(database: Database, rawEmail: string, accountId: string, rawRole: string): Promise<StaffUserWithMemberships> {
  const role = parseStaffRole(rawRole);
  const user = await requireUser(database, rawEmail);
  const account = await requireMemberAccount(database, accountId);
  await withAdminLock(database, (tx) => setMembership(tx, user, account, role));
  return withMemberships(database, user);
}

/** grantMembership as one step of the caller's transaction (the first start's provisioning, lib/domain/staff/bootstrap.ts). */
export async function grantMembershipIn(tx: Tx, rawEmail: string, accountId: string, rawRole: string): Promise<StaffUserWithMemberships> {
  const role = parseStaffRole(rawRole);
  const user = await requireUser(tx, rawEmail);
  const account = await requireMemberAccount(tx, accountId);
  await adminLocked(tx, () => setMembership(tx, user, account, role));
  return withMemberships(tx, user);
}

/** The membership's row, under the admin lock. */
async function setMembership(tx: Tx, user: StaffRow, account: { id: string; name: string }, role: StaffRole): Promise<void> {
  if (role !== "admin") await refuseLastAccountAdmin(tx, user, account);
  const before = await selectMembershipRole(tx, user.id, account.id);
  await upsertMembershipRow(tx, user.id, account.id, role);
  // A changed role ends the user's sessions (docs/adr/0507); a new membership only adds.
  if (before && before !== role) await updateStaffUserById(tx, user.id, endsSessions);
}

/** Ends the user's membership of the account (the user stays, with their other accounts). */
export async function revokeMembership(database: Database, rawEmail: string, accountId: string): Promise<StaffUserWithMemberships> {
  const user = await requireUser(database, rawEmail);
  await withAdminLock(database, async (tx) => {
    const account = isUuid(accountId) ? await selectAccountRow(tx, accountId) : undefined;
    if (account) await refuseLastAccountAdmin(tx, user, account);
    const removed = account ? await deleteMembershipRow(tx, user.id, accountId) : false;
    if (!removed) throw new DomainError(`${user.email} is not a member of the account ${accountId}`);
    await updateStaffUserById(tx, user.id, endsSessions);
  });
  return withMemberships(database, user);
}

/**
 * An account keeps at least one admin member: taking the role away from its
 * last one (revoke, or a lower role) is refused. Owners can still open it,
 * but its own staff would be left without anyone to manage it.
 */
async function refuseLastAccountAdmin(tx: Tx, user: StaffRow, account: { id: string; name: string }): Promise<void> {
  const admins = await selectAccountAdminIds(tx, account.id);
  if (admins.length === 1 && admins[0] === user.id) {
    throw new DomainError(`${user.email} is the last admin of ${account.name}: add another admin before changing or removing it`);
  }
}

/** Grants or withdraws the owner flag. */
export async function setStaffOwner(q: Queryable, rawEmail: string, owner: boolean): Promise<StaffUser> {
  const user = await requireUser(q, rawEmail);
  const row = await updateStaffUserById(q, user.id, { isOwner: owner, ...endsSessions });
  return toStaffUser(row!);
}

/** The accounts a user belongs to (not deleted), by account name. */
export async function listMembershipsOf(q: Queryable, userId: string): Promise<Membership[]> {
  const rows = await selectMembershipsOf(q, [userId]);
  return rows.map(({ accountId, accountName, role }) => ({ accountId, accountName, role }));
}

async function withMemberships(q: Queryable, row: StaffRow): Promise<StaffUserWithMemberships> {
  return { ...toStaffUser(row), memberships: await listMembershipsOf(q, row.id) };
}

/** Staff users with their memberships; with `accountId`, only the members of that account. */
export async function listStaffWithMemberships(q: Queryable, options: { accountId?: string } = {}): Promise<StaffUserWithMemberships[]> {
  let users = await selectStaffUserRows(q);
  if (options.accountId !== undefined) {
    await requireMemberAccount(q, options.accountId);
    const ids = new Set(await selectMemberIds(q, options.accountId));
    users = users.filter((u) => ids.has(u.id));
  }
  if (users.length === 0) return [];
  const rows = await selectMembershipsOf(
    q,
    users.map((u) => u.id),
  );
  return users.map((u) => ({
    ...toStaffUser(u),
    memberships: rows.filter((r) => r.userId === u.id).map(({ accountId, accountName, role }) => ({ accountId, accountName, role })),
  }));
}

export async function listStaffUsers(q: Queryable): Promise<StaffUser[]> {
  return (await selectStaffUserRows(q)).map(toStaffUser);
}

export async function getStaffUser(q: Queryable, email: string): Promise<StaffUser | undefined> {
  const row = await selectStaffUserByEmail(q, normalizeStaffEmail(email));
  return row ? toStaffUser(row) : undefined;
}

/** The staff user of a row id (a dashboard session's `uid`, ADR 0509); undefined when there is none. */
export async function getStaffUserById(q: Queryable, id: string): Promise<StaffUser | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await selectStaffUserById(q, id);
  return row ? toStaffUser(row) : undefined;
}

export async function countAdmins(q: Queryable): Promise<number> {
  return countAdminRows(q);
}

/** Runs `work` holding the admin lock; `work` sees the admin count at that moment. */
async function withAdminLock<T>(database: Database, work: (tx: Tx, admins: number) => Promise<T>): Promise<T> {
  return withTransaction(database, (tx) => adminLocked(tx, work));
}

/** withAdminLock in the caller's transaction. */
async function adminLocked<T>(tx: Tx, work: (tx: Tx, admins: number) => Promise<T>): Promise<T> {
  await lockForTransaction(tx, ADMIN_LOCK_ID);
  return work(tx, await countAdmins(tx));
}

/** Removes a staff user; refuses to remove the last admin. */
export async function removeStaffUser(database: Database, rawEmail: string): Promise<StaffUser> {
  const email = normalizeStaffEmail(rawEmail);
  return withAdminLock(database, async (tx, admins) => {
    const row = await selectStaffUserByEmail(tx, email);
    if (!row) throw new DomainError(`No staff user with the email ${email}`);
    if (row.role === "admin" && admins <= 1) {
      throw new DomainError(`${email} is the last admin: add another admin before removing it`);
    }
    await deleteStaffUserRow(tx, row.id);
    return toStaffUser(row);
  });
}

/** Changes a staff user's role, in every account they belong to (per account: grantMembership); refuses to demote the last admin. */
export async function changeStaffRole(database: Database, rawEmail: string, rawRole: string): Promise<StaffUser> {
  const email = normalizeStaffEmail(rawEmail);
  const role = parseStaffRole(rawRole);
  return withAdminLock(database, async (tx, admins) => {
    const row = await selectStaffUserByEmail(tx, email);
    if (!row) throw new DomainError(`No staff user with the email ${email}`);
    if (row.role === "admin" && role !== "admin" && admins <= 1) {
      throw new DomainError(`${email} is the last admin: add another admin before changing its role`);
    }
    const updated = await updateStaffUserById(tx, row.id, { role, ...endsSessions });
    // The one-role command of before memberships: the role in every account the user belongs to (ADR 0510).
    await setRoleInEveryMembership(tx, row.id, role);
    return toStaffUser(updated!);
  });
}

/** Sets a password (CLI). `mustChangePassword`: it was generated, the user is asked to choose their own at sign-in. */
export async function setStaffPassword(q: Queryable, rawEmail: string, password: string, options: { mustChangePassword?: boolean } = {}): Promise<StaffUser> {
  const email = normalizeStaffEmail(rawEmail);
  requirePassword(password);
  const passwordHash = await hashStaffPassword(password);
  const row = await updateStaffUserByEmail(q, email, { passwordHash, mustChangePassword: options.mustChangePassword ?? false, ...endsSessions });
  if (!row) throw new DomainError(`No staff user with the email ${email}`);
  return toStaffUser(row);
}

/**
 * A signed-in staff member chooses a new password (the dashboard's
 * /account/password): the current one must be given and the new one must
 * differ from it. Clears mustChangePassword.
 */
export async function changeOwnPassword(q: Queryable, rawEmail: string, current: string, next: string): Promise<StaffUser> {
  const email = normalizeStaffEmail(rawEmail);
  const row = await selectStaffUserByEmail(q, email);
  if (!row) throw new DomainError(`No staff user with the email ${email}`);
  let ok = false;
  try {
    ok = await verify(row.passwordHash, current);
  } catch {
    ok = false;
  }
  if (!ok) throw new DomainError("The current password is not right");
  requirePassword(next);
  if (next === current) throw new DomainError("Choose a password that differs from the current one");
  const passwordHash = await hashStaffPassword(next);
  const updated = await updateStaffUserById(q, row.id, { passwordHash, mustChangePassword: false, ...endsSessions });
  return toStaffUser(updated!);
}

// Verified against when the email is unknown, so that a missing user costs
// about as much time as a wrong password (no user enumeration by timing).
// eslint-disable-next-line no-restricted-syntax -- a memo of a constant (the hash of a fixed password)
let dummyHash: Promise<string> | undefined;
function getDummyHash(): Promise<string> {
  dummyHash ??= hash("mailroom-dummy-password-for-timing");
  return dummyHash;
}

/**
 * Checks a sign-in. Returns the user (and records last_login_at) when the
 * password matches, else null. Never throws for bad input.
 */
export async function verifyStaffPassword(q: Queryable, rawEmail: string, password: string): Promise<StaffUser | null> {
  const email = normalizeStaffEmail(rawEmail ?? "");
  const row = email ? await selectStaffUserByEmail(q, email) : undefined;
  const stored = row?.passwordHash ?? (await getDummyHash());
  let ok = false;
  try {
    ok = await verify(stored, password ?? "");
  } catch {
    ok = false; // a malformed stored hash never signs anyone in
  }
  if (!row || !ok) return null;
  const lastLoginAt = new Date();
  await updateStaffUserById(q, row.id, { lastLoginAt });
  return toStaffUser({ ...row, lastLoginAt });
}

export interface VisibleAccount {
  accountId: string;
  accountName: string;
  /** The user's role there: their membership's, else admin for an owner. */
  role: StaffRole;
  isDefault: boolean;
  status: "active" | "suspended";
  member: boolean;
}

/**
 * The accounts a staff user may open in the dashboard, by name: their
 * memberships, and for an owner every account (not deleted). Undefined when
 * no staff user has that email.
 */
export async function accountsVisibleTo(q: Queryable, rawEmail: string): Promise<{ user: StaffUser; accounts: VisibleAccount[] } | undefined> {
  const row = await selectStaffUserByEmail(q, normalizeStaffEmail(rawEmail));
  if (!row) return undefined;
  const rows = await selectAccountsVisibleTo(q, row.id, row.isOwner);
  return {
    user: toStaffUser(row),
    accounts: rows.map((r) => ({
      accountId: r.accountId,
      accountName: r.accountName,
      role: r.role ?? "admin",
      isDefault: r.isDefault,
      status: r.status as "active" | "suspended",
      member: r.role !== null,
    })),
  };
}
