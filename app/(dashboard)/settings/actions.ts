"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDashboardAccountId } from "@/lib/api-client/dashboard-account";
import { requireRole } from "@/lib/auth/require-role";
import { DomainError } from "@/lib/domain/accounts";
import { createApiKey, revokeApiKey } from "@/lib/domain/api-keys";
import { clearDashboardKeyCache } from "@/lib/domain/bootstrap";
import { checkDomainDns, describeFailedCheck } from "@/lib/domain/domain-verification";
import { addSenderDomain, listSenderDomains, markDomainVerified } from "@/lib/domain/sender-domains";
import { looksLikeEmailAddress } from "@/lib/domain/plausible-email";
import { addStaffUser, changeStaffRole, removeStaffUser, STAFF_ROLES } from "@/lib/domain/staff-users";
import { addSuppression, removeSuppression } from "@/lib/domain/suppressions";
import { getServerContext } from "@/lib/runtime";

/**
 * Settings (admin only): the same server-only domain functions the CLI uses,
 * behind requireRole. Every action treats its arguments as untrusted input
 * (a server action is a public POST endpoint) and answers a small result
 * object; a refusal of the domain (last admin, duplicate) comes back as a
 * message for the page, never as a 500.
 */

export type ActionResult<T = object> = ({ ok: true } & T) | { ok: false; error: string };

async function run<T extends object>(work: (accountId: string) => Promise<ActionResult<T>>): Promise<ActionResult<T>> {
  await requireRole("settings");
  try {
    const result = await work(await getDashboardAccountId());
    if (result.ok) revalidatePath("/settings");
    return result;
  } catch (err) {
    if (err instanceof DomainError || err instanceof z.ZodError) return { ok: false, error: messageOf(err) };
    if (err instanceof Error && /already has the domain|is not a domain name/.test(err.message)) return { ok: false, error: err.message };
    throw err;
  }
}

function messageOf(err: Error): string {
  if (err instanceof z.ZodError) return err.issues.map((i) => i.message).join("; ");
  return err.message;
}

const label = z.string().trim().max(100, "A label has at most 100 characters");
const id = z.uuid("Not a valid id");
const email = z.string().trim().min(3, "Enter an email address").max(254);

export async function createApiKeyAction(rawLabel: unknown): Promise<ActionResult<{ apiKey: string; prefix: string }>> {
  return run(async (accountId) => {
    const { key, apiKey } = await createApiKey(getServerContext().database.db, accountId, label.parse(rawLabel));
    return { ok: true, apiKey, prefix: key.prefix };
  });
}

export async function revokeApiKeyAction(rawId: unknown): Promise<ActionResult> {
  return run(async (accountId) => {
    const revoked = await revokeApiKey(getServerContext().database.db, id.parse(rawId), accountId);
    // The dashboard's own key may be the one revoked: the next lookup provisions a new one.
    clearDashboardKeyCache();
    return revoked ? { ok: true } : { ok: false, error: "No such active key (it may be revoked already)" };
  });
}

export async function addDomainAction(rawName: unknown): Promise<ActionResult<{ name: string }>> {
  return run(async (accountId) => {
    const name = z.string().trim().min(1, "Enter a domain name").max(253).parse(rawName);
    const row = await addSenderDomain(getServerContext().database.db, accountId, name);
    return { ok: true, name: row.name };
  });
}

export async function verifyDomainAction(rawId: unknown): Promise<ActionResult<{ verified: boolean; detail: string }>> {
  return run<{ verified: boolean; detail: string }>(async (accountId) => {
    const db = getServerContext().database.db;
    const domainId = id.parse(rawId);
    const domain = (await listSenderDomains(db, accountId)).find((d) => d.id === domainId);
    if (!domain) return { ok: false, error: "No such domain" };
    if (domain.status === "verified") return { ok: true, verified: true, detail: `${domain.name} is verified` };
    const check = await checkDomainDns(domain);
    if (!check.verified) return { ok: true, verified: false, detail: describeFailedCheck(check) };
    await markDomainVerified(db, domain.id);
    return { ok: true, verified: true, detail: `${domain.name} is verified${check.dkimFound ? "" : " (the DKIM record is not published yet)"}` };
  });
}

export async function addSuppressionAction(rawEmail: unknown): Promise<ActionResult<{ added: boolean }>> {
  return run(async (accountId) => {
    const address = email.refine((e) => e.length <= 254 && looksLikeEmailAddress(e), "Not an email address").parse(rawEmail);
    const added = await addSuppression(getServerContext().database.db, { accountId, email: address, reason: "manual", detail: "Added in the dashboard" });
    return { ok: true, added };
  });
}

export async function removeSuppressionAction(rawEmail: unknown): Promise<ActionResult> {
  return run(async (accountId) => {
    const removed = await removeSuppression(getServerContext().database.db, accountId, email.parse(rawEmail));
    return removed ? { ok: true } : { ok: false, error: "That address is not on the suppression list" };
  });
}

const staffInput = z.object({
  email,
  role: z.enum(STAFF_ROLES),
  password: z.string().max(200),
  name: z.string().trim().max(100).optional(),
});

export async function addStaffAction(raw: unknown): Promise<ActionResult> {
  return run(async () => {
    await addStaffUser(getServerContext().database.db, staffInput.parse(raw));
    return { ok: true };
  });
}

export async function changeStaffRoleAction(rawEmail: unknown, rawRole: unknown): Promise<ActionResult> {
  return run(async () => {
    await changeStaffRole(getServerContext().database.db, email.parse(rawEmail), z.string().parse(rawRole));
    return { ok: true };
  });
}

export async function removeStaffAction(rawEmail: unknown): Promise<ActionResult> {
  return run(async () => {
    await removeStaffUser(getServerContext().database.db, email.parse(rawEmail));
    return { ok: true };
  });
}
