import "server-only";
import { ApiRequestError } from "../api-client/client";
import { describeApiError } from "../api-client/describe-error";
import { getDefaultAccount } from "../domain/accounts/accounts";
import { invitationEmail } from "../domain/staff/invitation-email";
import { listSenderDomains } from "../domain/accounts/sender-domains";
import {
  acceptInvitation,
  acceptInvitationAsNewUser,
  createInvitation,
  findOpenInvitation,
  listPendingInvitations,
  revokeInvitation,
} from "../domain/staff/staff-invitations";
import { addStaffUser, getStaffUser, grantMembership, listStaffWithMemberships, normalizeStaffEmail } from "../domain/staff/staff-users";
import { getServerContext } from "../runtime";
import { apiClientFor } from "./api";
import type { AccountAccess } from "./decide";
import { assertArea } from "./guard";
import { refuse } from "./refusal";

/**
 * Adding members to an account (ADR 0512). An account admin invites: the
 * answer is the same whatever the address ("Invitation sent to …"), no
 * membership exists until the invited person accepts, and nothing about a
 * user of another account is shown. An owner may still add directly (an
 * existing user, or a new one with an initial password), as the CLI does.
 * The invitation email goes through the instance's own sending path: the
 * API as the default account (its dashboard key), From
 * MAILROOM_INVITATION_FROM or no-reply@ its first verified domain.
 */

const database = () => getServerContext().database;

export interface AddMemberResult {
  message: string;
}

/** The form's add: invite (account admins; owners without a password for a new user), or add at once (owners). */
export async function addOrInviteMember(
  access: AccountAccess,
  input: { email: string; role: string; password?: string; name?: string },
): Promise<AddMemberResult> {
  assertArea(access, "settings");
  const accountId = access.account.accountId;
  const typed = input.email.trim();
  const members = await listStaffWithMemberships(database(), { accountId });
  if (members.some((m) => m.email === normalizeStaffEmail(typed))) refuse(`${typed} is a member of this account already`);
  if (access.user.isOwner) {
    if (await getStaffUser(database(), typed)) {
      await grantMembership(database(), typed, accountId, input.role);
      return { message: `${typed} is now a member of ${access.account.accountName}` };
    }
    if (input.password) {
      await addStaffUser(database(), { email: typed, role: input.role, password: input.password, name: input.name, accountId });
      return { message: `${typed} is now a member of ${access.account.accountName}` };
    }
  }
  await inviteMember(access, typed, input.role);
  return { message: `Invitation sent to ${typed}` };
}

async function invitationFrom(defaultAccountId: string): Promise<string> {
  const configured = getServerContext().config.auth.invitationFrom;
  if (configured) return configured;
  const verified = (await listSenderDomains(database(), defaultAccountId)).find((d) => d.status === "verified");
  if (!verified) refuse("Invitations cannot be sent: set MAILROOM_INVITATION_FROM, or verify a sender domain of the default account");
  return `no-reply@${verified.name}`;
}

async function inviteMember(access: AccountAccess, email: string, role: string): Promise<void> {
  const ctx = getServerContext();
  const instance = await getDefaultAccount(database());
  if (!instance) refuse("Invitations cannot be sent: this install has no default account");
  const from = await invitationFrom(instance.id);
  const { invitation, token } = await createInvitation(database(), { accountId: access.account.accountId, email, role, invitedBy: access.user.email });
  const message = invitationEmail({
    from,
    to: invitation.email,
    accountName: access.account.accountName,
    role: invitation.role,
    inviter: access.user.name && access.user.name !== access.user.email ? `${access.user.name} (${access.user.email})` : access.user.email,
    link: `${ctx.config.publicUrl}/invite/${token}`,
    expiresAt: invitation.expiresAt,
  });
  try {
    await (await apiClientFor(instance.id)).sendEmail(message);
  } catch (err) {
    // Nobody will ever hold this token: no invitation is left pending.
    await revokeInvitation(database(), invitation.accountId, invitation.id);
    if (err instanceof ApiRequestError) refuse(`The invitation email was not accepted: ${describeApiError(err)}`);
    throw err;
  }
}

export interface InvitationView {
  id: string;
  email: string;
  role: string;
  expiresAt: string;
  expired: boolean;
}

export async function pendingInvitations(access: AccountAccess): Promise<InvitationView[]> {
  assertArea(access, "settings");
  const now = Date.now();
  return (await listPendingInvitations(database(), access.account.accountId)).map((i) => ({
    id: i.id,
    email: i.email,
    role: i.role,
    expiresAt: i.expiresAt.toISOString(),
    expired: i.expiresAt.getTime() <= now,
  }));
}

export async function withdrawInvitation(access: AccountAccess, invitationId: string): Promise<null> {
  assertArea(access, "settings");
  if (!(await revokeInvitation(database(), access.account.accountId, invitationId))) refuse("No such pending invitation (it may be accepted or revoked already)");
  return null;
}

/** What the invitation page shows to whoever holds the link. */
export type InvitationPage =
  | { state: "invalid" }
  | { state: "open"; accountName: string; role: string; email: string; expiresAt: string; hasUser: boolean };

export async function invitationPage(token: string): Promise<InvitationPage> {
  const open = await findOpenInvitation(database(), token);
  if (!open) return { state: "invalid" };
  const hasUser = Boolean(await getStaffUser(database(), open.email));
  return { state: "open", accountName: open.accountName, role: open.role, email: open.email, expiresAt: open.expiresAt.toISOString(), hasUser };
}

/** The signed-in staff member accepts (their email must be the invited one). Returns the account to open. */
export async function acceptAsSignedIn(token: string, email: string): Promise<string> {
  return (await acceptInvitation(database(), token, email)).accountId;
}

/** The invited address had no staff user: it becomes one with this password. */
export async function acceptAsNewUser(token: string, input: { password: string; name?: string }): Promise<{ accountId: string; email: string }> {
  const made = await acceptInvitationAsNewUser(database(), token, input);
  return { accountId: made.accountId, email: made.email };
}
