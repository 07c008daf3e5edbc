import { createHash, randomBytes } from "node:crypto";
import type { Database, Queryable } from "../../storage/database";
import type { StaffRole } from "../../contract/staff-roles";
import {
  deletePendingInvitation,
  deletePendingInvitationOf,
  insertInvitationRow,
  markInvitationAccepted,
  selectOpenInvitationRow,
  selectPendingInvitationRows,
  type InvitationRow,
} from "../../storage/invitation-rows";
import { insertMembershipRow, insertStaffUserRow, selectStaffUserByEmail } from "../../storage/staff-rows";
import { withTransaction, type Tx } from "../../storage/transaction";
import { DomainError } from "../shared/domain-error";
import { hashStaffPassword, MIN_PASSWORD_LENGTH, normalizeStaffEmail, parseStaffRole, requireEmail, requireMemberAccount } from "./staff-users";

/**
 * Invitations to join an account (ADR 0512). An account admin who adds
 * someone not yet a member makes an invitation, not a membership: a row with
 * the address as typed (normalised), the role and an expiry, and a random
 * single-use token of which only the SHA-256 is stored. The token goes to
 * the address by email (lib/dashboard/invitations.ts); whoever opens the
 * link signs in as that address (or, with no staff user yet, chooses a
 * password) and accepts: only then is there a membership. Creating one says
 * nothing about whether the address is a staff user already.
 */

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** base64url of 32 random bytes. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface Invitation {
  id: string;
  accountId: string;
  email: string;
  role: StaffRole;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface OpenInvitation extends Invitation {
  accountName: string;
}

const INVALID = "This invitation is not valid: it has expired, was used already or was revoked. Ask for a new one.";

export function hashInvitationToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

function toInvitation(r: InvitationRow): Invitation {
  return { id: r.id, accountId: r.accountId, email: r.email, role: r.role, invitedBy: r.invitedBy, createdAt: r.createdAt, expiresAt: r.expiresAt };
}

/**
 * A new invitation to the account, replacing a pending one for the same
 * address. Returns the token (shown nowhere but in the email).
 */
export async function createInvitation(
  database: Database,
  input: { accountId: string; email: string; role: string; invitedBy?: string; now?: Date; ttlMs?: number },
): Promise<{ invitation: Invitation; token: string }> {
  const email = requireEmail(input.email);
  const role = parseStaffRole(input.role);
  const account = await requireMemberAccount(database, input.accountId);
  const now = input.now ?? new Date();
  const token = randomBytes(32).toString("base64url");
  const row = await withTransaction(database, async (tx) => {
    await deletePendingInvitationOf(tx, account.id, email);
    return insertInvitationRow(tx, {
      accountId: account.id,
      email,
      role,
      tokenHash: hashInvitationToken(token),
      invitedBy: input.invitedBy ?? "",
      createdAt: now,
      expiresAt: new Date(now.getTime() + (input.ttlMs ?? INVITATION_TTL_MS)),
    });
  });
  return { invitation: toInvitation(row), token };
}

/** The account's invitations not accepted yet (expired ones too, marked by their expiry), by address. */
export async function listPendingInvitations(q: Queryable, accountId: string): Promise<Invitation[]> {
  return (await selectPendingInvitationRows(q, accountId)).map(toInvitation);
}

/** Withdraws a pending invitation of the account; false when there is none with that id. */
export async function revokeInvitation(q: Queryable, accountId: string, invitationId: string): Promise<boolean> {
  return deletePendingInvitation(q, accountId, invitationId);
}

/** The invitation a token opens, while it may still be accepted (not used, not expired, its account not deleted). */
export async function findOpenInvitation(q: Queryable, token: unknown, now = new Date()): Promise<OpenInvitation | undefined> {
  if (typeof token !== "string" || !TOKEN_PATTERN.test(token)) return undefined;
  const row = await selectOpenInvitationRow(q, hashInvitationToken(token), now);
  return row ? { ...toInvitation(row.invitation), accountName: row.accountName } : undefined;
}

/**
 * Uses the token (once: the update that marks it accepted is the check) and
 * makes `userId` a member with the invited role, in one transaction. A
 * membership the user has already is left as it is.
 */
async function consume(tx: Tx, token: string, email: string, now: Date): Promise<InvitationRow> {
  if (!TOKEN_PATTERN.test(token)) throw new DomainError(INVALID);
  const row = await markInvitationAccepted(tx, hashInvitationToken(token), now);
  if (!row) throw new DomainError(INVALID);
  if (row.email !== email) throw new DomainError(`This invitation is for ${row.email}: sign in as that address to accept it`);
  return row;
}

/** The signed-in staff user `email` accepts: the membership exists from now on. */
export async function acceptInvitation(database: Database, token: string, rawEmail: string, now = new Date()): Promise<{ accountId: string; role: StaffRole }> {
  const email = normalizeStaffEmail(rawEmail);
  return withTransaction(database, async (tx) => {
    const user = await selectStaffUserByEmail(tx, email);
    if (!user) throw new DomainError(INVALID);
    const row = await consume(tx, token, email, now);
    await insertMembershipRow(tx, { userId: user.id, accountId: row.accountId, role: row.role }, { ifAbsent: true });
    return { accountId: row.accountId, role: row.role };
  });
}

/**
 * The invited address has no staff user yet: it becomes one with the
 * password chosen here, a member of the inviting account only.
 */
export async function acceptInvitationAsNewUser(
  database: Database,
  token: string,
  input: { password: string; name?: string },
  now = new Date(),
): Promise<{ accountId: string; role: StaffRole; email: string }> {
  if (input.password.length < MIN_PASSWORD_LENGTH) throw new DomainError(`A password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  const open = await findOpenInvitation(database, token, now);
  if (!open) throw new DomainError(INVALID);
  const passwordHash = await hashStaffPassword(input.password);
  return withTransaction(database, async (tx) => {
    const row = await consume(tx, token, open.email, now);
    const user = await insertStaffUserRow(tx, { email: row.email, role: row.role, passwordHash, name: input.name?.trim().slice(0, 100) ?? "" });
    // Became a staff user meanwhile (another invitation, the CLI): they sign in and accept instead.
    if (!user) throw new DomainError(`${row.email} has a Mailroom sign-in already: sign in to accept the invitation`);
    await insertMembershipRow(tx, { userId: user.id, accountId: row.accountId, role: row.role });
    return { accountId: row.accountId, role: row.role, email: row.email };
  });
}
