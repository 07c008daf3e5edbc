import "server-only";
import { revalidatePath } from "next/cache";
import type { z } from "zod";
import { ApiRequestError } from "../api-client/client";
import { describeApiError } from "../api-client/describe-error";
import type { Area } from "../auth/roles";
import { DomainError } from "../domain/shared/domain-error";
import { outageMessage } from "../domain/shared/outage-message";
import { checkAccess, dashboardUserOrOutage, type AccountAccess, type DashboardUser } from "./access";
import { ActionRefusal } from "./refusal";

export { ActionRefusal, refuse } from "./refusal";

/**
 * The one shape every server action of the dashboard answers (ADR 0510),
 * and the wrapper that makes it: `staffAction(area, schema, fn)` checks the
 * session, the membership of the account and the role for `area`, parses
 * the input with zod (a server action is a public POST endpoint), runs `fn`,
 * turns a refusal of the domain or the API into a message, and revalidates
 * the account's page. Anything else is a defect and is thrown. The input is
 * typed `unknown` on purpose: whatever the caller's types, it arrives as an
 * untrusted POST body and only the schema decides.
 */

export type ActionResult<T = null> = { ok: true; data: T } | { ok: false; error: string; fieldErrors?: Record<string, string> };

function fieldErrorsOf(err: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of err.issues) {
    const key = issue.path.map(String).join(".") || "_";
    out[key] ??= issue.message;
  }
  return out;
}

export function staffAction<S extends z.ZodType, T>(
  area: Area,
  schema: S,
  fn: (input: z.infer<S>, access: AccountAccess) => Promise<T>,
  options: { revalidate?: string } = {},
): (accountId: string, input: unknown) => Promise<ActionResult<T>> {
  return async (accountId, raw) => {
    const check = await checkAccess(accountId, area);
    if (!check.ok) return { ok: false, error: check.error };
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const fieldErrors = fieldErrorsOf(parsed.error);
      return { ok: false, error: Object.values(fieldErrors).join("; "), fieldErrors };
    }
    try {
      const data = await fn(parsed.data, check.access);
      if (options.revalidate !== undefined) revalidatePath(`${check.access.base}${options.revalidate}`);
      return { ok: true, data };
    } catch (err) {
      if (err instanceof ActionRefusal) return { ok: false, error: err.message, ...(err.fieldErrors && { fieldErrors: err.fieldErrors }) };
      if (err instanceof DomainError) return { ok: false, error: err.message };
      if (err instanceof ApiRequestError) return { ok: false, error: describeApiError(err) };
      // An outage of the database (unreachable, disk full) is said plainly, not thrown as a defect.
      const outage = outageMessage(err);
      if (outage) return { ok: false, error: outage };
      throw err;
    }
  };
}

/** The same wrapper for the instance-wide actions of owners (the Accounts page): no account, the owner flag instead. */
export function ownerAction<S extends z.ZodType, T>(
  schema: S,
  fn: (input: z.infer<S>, owner: DashboardUser) => Promise<T>,
): (input: unknown) => Promise<ActionResult<T>> {
  return async (raw) => {
    const { user, outage } = await dashboardUserOrOutage();
    if (outage) return { ok: false, error: outage };
    if (!user) return { ok: false, error: "Sign in first" };
    if (!user.isOwner) return { ok: false, error: "Only an owner may manage accounts" };
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const fieldErrors = fieldErrorsOf(parsed.error);
      return { ok: false, error: Object.values(fieldErrors).join("; "), fieldErrors };
    }
    try {
      const data = await fn(parsed.data, user);
      revalidatePath("/accounts");
      return { ok: true, data };
    } catch (err) {
      if (err instanceof ActionRefusal) return { ok: false, error: err.message, ...(err.fieldErrors && { fieldErrors: err.fieldErrors }) };
      if (err instanceof DomainError) return { ok: false, error: err.message };
      const outage = outageMessage(err);
      if (outage) return { ok: false, error: outage };
      throw err;
    }
  };
}
