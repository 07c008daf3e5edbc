/**
 * Staff roles and what each may use (DESIGN.md "Dashboard"): admin
 * everything; support events, messages, compose and sandbox; marketing the
 * overview and events, read-only. Pure data and functions: the navigation,
 * lib/dashboard/access.ts and the tests all read this one table; the role is per account (ADR 0510).
 */

export const ROLES = ["admin", "support", "marketing"] as const;
export type Role = (typeof ROLES)[number];

export type Area = "overview" | "events" | "messages" | "compose" | "sandbox" | "webhooks" | "settings";

export const AREA_ROLES: Record<Area, readonly Role[]> = {
  overview: ["admin", "marketing"],
  events: ["admin", "support", "marketing"],
  messages: ["admin", "support"],
  compose: ["admin", "support"],
  sandbox: ["admin", "support"],
  webhooks: ["admin"],
  settings: ["admin"],
};

export interface NavItem {
  area: Area;
  href: string;
  label: string;
  /** False until the page exists (issue 6 builds compose, sandbox, webhooks, settings): flip it when it lands. */
  ready: boolean;
}

/** The navigation in display order. */
export const NAV_ITEMS: readonly NavItem[] = [
  { area: "overview", href: "/", label: "Overview", ready: true },
  { area: "events", href: "/events", label: "Events", ready: true },
  { area: "compose", href: "/compose", label: "Compose", ready: true },
  { area: "sandbox", href: "/sandbox", label: "Sandbox", ready: true },
  { area: "webhooks", href: "/webhooks", label: "Webhooks", ready: true },
  { area: "settings", href: "/settings", label: "Settings", ready: true },
];

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

export function canAccess(role: Role | undefined, area: Area): boolean {
  return role !== undefined && AREA_ROLES[area].includes(role);
}

/** Navigation entries the role may use (all of them, or only the pages that exist). */
export function navFor(role: Role, options: { onlyReady?: boolean } = {}): NavItem[] {
  return NAV_ITEMS.filter((item) => canAccess(role, item.area) && (!options.onlyReady || item.ready));
}

/** Where a role lands after sign-in: the first page it may use. */
export function homeFor(role: Role): string {
  return canAccess(role, "overview") ? "/" : "/events";
}
