"use server";

import { z } from "zod";
import { ROLES } from "@/lib/auth/roles";
import { API_KEY_SCOPES } from "@/lib/contract/api-keys";
import { looksLikeEmailAddress } from "@/lib/contract/plausible-email";
import { staffAction } from "@/lib/dashboard/action";
import { addOrInviteMember, withdrawInvitation } from "@/lib/dashboard/invitations";
import {
  addDomain,
  changeMemberRole,
  createKey,
  removeDomain,
  removeMember,
  revokeKey,
  rotateDomainDkim,
  suppress,
  unsuppress,
  verifyDomain,
} from "@/lib/dashboard/settings";

/**
 * Settings of the account (its admins): the same domain functions the CLI
 * uses, through lib/dashboard, each behind staffAction (membership, role,
 * zod-parsed input, one result shape, a refusal as a message, revalidation).
 */

const opts = { revalidate: "/settings" };
const label = z.string().trim().max(100, "A label has at most 100 characters");
const id = z.uuid("Not a valid id");
const email = z.string().trim().min(3, "Enter an email address").max(254);
const address = email.refine(looksLikeEmailAddress, "Not an email address");
const role = z.enum(ROLES, { error: "Choose admin, support or marketing" });

// Domains as typed, comma- or space-separated; empty: every verified domain (docs/contract.md §17.3).
const newKey = z.object({
  label,
  scope: z.enum(API_KEY_SCOPES, { error: "Choose full, send or read" }),
  domains: z.string().max(2000, "At most 2000 characters of domains"),
});

export const createApiKeyAction = staffAction(
  "settings",
  newKey,
  (k, access) => createKey(access, k.label, { scope: k.scope, senderDomains: k.domains.split(/[\s,]+/).filter(Boolean) }),
  opts,
);

export const revokeApiKeyAction = staffAction("settings", id, (keyId, access) => revokeKey(access, keyId), opts);

export const addDomainAction = staffAction("settings", z.string().trim().min(1, "Enter a domain name").max(253), (name, access) => addDomain(access, name), opts);

export const verifyDomainAction = staffAction("settings", id, (domainId, access) => verifyDomain(access, domainId), opts);

export const deleteDomainAction = staffAction("settings", id, (domainId, access) => removeDomain(access, domainId), opts);

export const rotateDkimAction = staffAction("settings", id, (domainId, access) => rotateDomainDkim(access, domainId), opts);

export const addSuppressionAction = staffAction("settings", address, (e, access) => suppress(access, e), opts);

export const removeSuppressionAction = staffAction("settings", email, (e, access) => unsuppress(access, e), opts);

// An account admin invites; an owner may add at once (ADR 0512). The password only matters to an owner adding a new user.
export const addStaffAction = staffAction(
  "settings",
  z.object({
    email: address,
    role,
    password: z.string().max(200).optional(),
    name: z.string().trim().max(100).optional(),
  }),
  (input, access) => addOrInviteMember(access, input),
  opts,
);

export const revokeInvitationAction = staffAction("settings", id, (invitationId, access) => withdrawInvitation(access, invitationId), opts);

export const changeStaffRoleAction = staffAction("settings", z.object({ email, role }), (input, access) => changeMemberRole(access, input.email, input.role), opts);

export const removeStaffAction = staffAction("settings", email, (e, access) => removeMember(access, e), opts);
