import "server-only";
import type { ApiKeyScope } from "../contract/api-keys";
import { createApiKey, listApiKeys, revokeApiKey, type KeyOptions } from "../domain/accounts/api-keys";
import {
  addDomain as addSenderDomain,
  checkDomain,
  deleteDomain as deleteSenderDomain,
  domainDepsFrom,
  listDomains,
  rotateDkim,
  type DomainDeps,
} from "../domain/accounts/domain-operations";
import type { HealthCheck } from "../domain/accounts/domain-health/check-result";
import type { DnsRecord } from "../domain/accounts/sender-domains";
import { grantMembership, listStaffWithMemberships, revokeMembership } from "../domain/staff/staff-users";
import { addSuppression, listSuppressions, removeSuppression } from "../domain/accounts/suppressions";
import { getServerContext } from "../runtime";
import { forgetDashboardKeys } from "./api";
import type { AccountAccess } from "./decide";
import { pendingInvitations, type InvitationView } from "./invitations";
import { refuse } from "./refusal";
import { assertArea } from "./guard";

export type { DnsRecord } from "../domain/accounts/sender-domains";
export type { HealthCheck } from "../domain/accounts/domain-health/check-result";

/**
 * Settings of one account (admin of that account): API keys, sender
 * domains, suppressions and the account's members. The same domain
 * functions the CLI uses, always with the account of the URL.
 */

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const database = () => getServerContext().database;
/** The sender domains' use cases with this process's DNS (MAILROOM_DNS_SERVERS or the system's). */
const domainDeps = (): DomainDeps => {
  const ctx = getServerContext();
  return domainDepsFrom({ database: ctx.database, lookup: ctx.domainLookup, publicUrl: ctx.publicUrl, delivery: ctx.config.delivery });
};

/** An API key as the Settings page shows it. */
export interface ApiKeyView {
  id: string;
  label: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** docs/contract.md §17.2, §17.3 */
  scope: ApiKeyScope;
  senderDomains: string[] | null;
}

export interface SettingsData {
  keys: ApiKeyView[];
  domains: { id: string; name: string; status: string; verifiedAt: string | null; records: DnsRecord[]; checks: HealthCheck[]; checkedAt: string | null }[];
  suppressions: { email: string; reason: string; detail: string; createdAt: string; messageId: string | null }[];
  members: { email: string; name: string; role: string; lastLoginAt: string | null }[];
  /** Pending invitations (ADR 0512): the address as typed, the role, the expiry. */
  invitations: InvitationView[];
}

export async function loadSettings(access: AccountAccess, query: { q?: string }): Promise<SettingsData> {
  assertArea(access, "settings");
  const accountId = access.account.accountId;
  const [keys, domains, suppressions, users, invitations] = await Promise.all([
    listApiKeys(database(), accountId),
    listDomains(domainDeps(), accountId),
    listSuppressions(database(), accountId, { search: query.q || undefined, limit: 200 }),
    listStaffWithMemberships(database(), { accountId }),
    pendingInvitations(access),
  ]);
  return {
    keys: keys.map((k) => ({
      id: k.id,
      label: k.label,
      prefix: k.prefix,
      createdAt: k.createdAt.toISOString(),
      lastUsedAt: iso(k.lastUsedAt),
      revokedAt: iso(k.revokedAt),
      scope: k.scope,
      senderDomains: k.senderDomains,
    })),
    domains: domains.map(({ row: d, records, checks }) => ({
      id: d.id,
      name: d.name,
      status: d.status,
      verifiedAt: iso(d.verifiedAt),
      records,
      checks,
      checkedAt: iso(d.checkedAt),
    })),
    suppressions: suppressions.map((s) => ({ email: s.email, reason: s.reason, detail: s.detail, createdAt: s.createdAt.toISOString(), messageId: s.messageId })),
    members: users.map((u) => ({
      email: u.email,
      name: u.name,
      role: u.memberships.find((m) => m.accountId === accountId)?.role ?? u.role,
      lastLoginAt: iso(u.lastLoginAt),
    })),
    invitations,
  };
}

export async function createKey(access: AccountAccess, label: string, options: KeyOptions = {}): Promise<{ apiKey: string; prefix: string }> {
  assertArea(access, "settings");
  const { key, apiKey } = await createApiKey(database(), access.account.accountId, label, options);
  return { apiKey, prefix: key.prefix };
}

export async function revokeKey(access: AccountAccess, keyId: string): Promise<null> {
  assertArea(access, "settings");
  const revoked = await revokeApiKey(database(), keyId, access.account.accountId);
  // The dashboard's own key may be the one revoked: the next lookup makes a new one.
  forgetDashboardKeys();
  getServerContext().apiKeyAuth.results.clear();
  if (!revoked) refuse("No such active key (it may be revoked already)");
  return null;
}

export async function addDomain(access: AccountAccess, name: string): Promise<{ name: string }> {
  assertArea(access, "settings");
  const view = await addSenderDomain(domainDeps(), access.account.accountId, name);
  return { name: view.row.name };
}

/** Checks the domain's DNS now (the API's POST /domains/{domain}/verify): verified once its TXT record is found. */
export async function verifyDomain(access: AccountAccess, domainId: string): Promise<{ verified: boolean; detail: string }> {
  assertArea(access, "settings");
  const found = await ownDomain(access, domainId);
  const view = (await checkDomain(domainDeps(), access.account.accountId, found.row.name))!;
  const verification = view.checks.find((c) => c.check === "verification");
  if (view.row.status !== "verified") return { verified: false, detail: verification?.detail ?? "The verification record was not found" };
  const failing = view.checks.filter((c) => c.status !== "pass").map((c) => c.check);
  return { verified: true, detail: `${view.row.name} is verified${failing.length ? `; to fix: ${failing.join(", ")}` : "; every check passes"}` };
}

/** The account's domain of that id, or the refusal (another account's is "No such domain" too). */
async function ownDomain(access: AccountAccess, domainId: string) {
  const found = (await listDomains(domainDeps(), access.account.accountId)).find((d) => d.row.id === domainId);
  if (!found) refuse("No such domain");
  return found;
}

export async function removeDomain(access: AccountAccess, domainId: string): Promise<null> {
  assertArea(access, "settings");
  const found = await ownDomain(access, domainId);
  await deleteSenderDomain(domainDeps(), access.account.accountId, found.row.name);
  return null;
}

/** Starts a DKIM rotation (the API's POST /domains/{domain}/dkim/rotate): the new record to publish is listed. */
export async function rotateDomainDkim(access: AccountAccess, domainId: string): Promise<{ selector: string }> {
  assertArea(access, "settings");
  const found = await ownDomain(access, domainId);
  const view = (await rotateDkim(domainDeps(), access.account.accountId, found.row.name))!;
  return { selector: view.row.dkimNextSelector! };
}

export async function suppress(access: AccountAccess, email: string): Promise<{ added: boolean }> {
  assertArea(access, "settings");
  const added = await addSuppression(database(), { accountId: access.account.accountId, email, reason: "manual", detail: "Added in the dashboard" });
  return { added };
}

export async function unsuppress(access: AccountAccess, email: string): Promise<null> {
  assertArea(access, "settings");
  if (!(await removeSuppression(database(), access.account.accountId, email))) refuse("That address is not on the suppression list");
  return null;
}

export async function changeMemberRole(access: AccountAccess, email: string, role: string): Promise<null> {
  assertArea(access, "settings");
  if (!(await isMember(access, email))) refuse(`${email} is not a member of this account`);
  await grantMembership(database(), email, access.account.accountId, role);
  return null;
}

export async function removeMember(access: AccountAccess, email: string): Promise<null> {
  assertArea(access, "settings");
  // The same refusal for an unknown address and another account's user: no oracle of who exists (ADR 0512).
  if (!(await isMember(access, email))) refuse(`${email} is not a member of this account`);
  await revokeMembership(database(), email, access.account.accountId);
  return null;
}

async function isMember(access: AccountAccess, email: string): Promise<boolean> {
  const members = await listStaffWithMemberships(database(), { accountId: access.account.accountId });
  return members.some((m) => m.email === email.trim().toLowerCase());
}
