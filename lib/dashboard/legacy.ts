import "server-only";
import { forbidden, redirect } from "next/navigation";
import { canAccess, homeFor, type Role } from "../auth/roles";
import { accountBase, defaultAccountOf, requireDashboardUser, type DashboardUser } from "./access";
import { findMessageAccount } from "./messages";

/**
 * Today's URLs before the account was in them (`/events?…`, `/messages/<id>`,
 * `/settings`, …) keep working (ADR 0510): they redirect to the same page of
 * the account that holds the message, else of the user's default account.
 */

export type SearchParams = Record<string, string | string[] | undefined>;

export function toQuery(params: SearchParams | URLSearchParams): string {
  const out = new URLSearchParams();
  if (params instanceof URLSearchParams) params.forEach((v, k) => out.append(k, v));
  else for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.append(k, one);
  const s = out.toString();
  return s ? `?${s}` : "";
}

async function landing(returnTo: string): Promise<{ user: DashboardUser; base: string; role: Role }> {
  const user = await requireDashboardUser(returnTo);
  const account = defaultAccountOf(user);
  // Signed in, but a member of no account (and not an owner): nothing to show.
  if (!account) forbidden();
  return { user, base: accountBase(account.accountId), role: account.role };
}

/** `/<path>?<query>` → `/a/<default account>/<path>?<query>`. */
export async function redirectToDefaultAccount(path: string, params: SearchParams = {}): Promise<never> {
  const query = toQuery(params);
  const { base } = await landing(`${path}${query}`);
  redirect(`${base}${path === "/" ? "" : path}${query}`);
}

/** `/`: the default account's home for the user's role there (support has no overview). */
export async function redirectHome(params: SearchParams = {}): Promise<never> {
  const query = toQuery(params);
  const { base, role } = await landing(`/${query}`);
  const home = canAccess(role, "overview") ? "" : homeFor(role);
  redirect(`${base}${home}${home ? "" : query}`);
}

/** Accepts the RFC 5322 Message-ID header as a mail client shows it too: `<MessageID@domain>`. */
export function normalizeMessageId(raw: string): string {
  return raw
    .trim()
    .slice(0, 300)
    .replace(/^<|>$/g, "")
    .replace(/^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@[^\s@]+$/i, "$1");
}

/** `/messages/<id>` and the header's search: the message's page in the account that holds it. */
export async function redirectToMessage(rawId: string): Promise<never> {
  const id = normalizeMessageId(rawId);
  const { user, base } = await landing(id ? `/messages/${encodeURIComponent(id)}` : "/events");
  if (!id) redirect(`${base}/events`);
  const holder = await findMessageAccount(user, id);
  redirect(`${holder ? accountBase(holder) : base}/messages/${encodeURIComponent(id)}`);
}
