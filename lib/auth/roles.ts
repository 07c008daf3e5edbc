import { STAFF_ROLES, type StaffRole } from "../contract/staff-roles";

/**
 * Staff roles and what each may use (docs/ARCHITECTURE.md, "The dashboard"): admin
 * everything; support events, messages, compose and sandbox; marketing the
 * overview and events, read-only. Pure data and functions: the navigation,
 * lib/dashboard/access.ts and the tests all read this one table; the role is per account (ADR 0510).
 */

/** The staff roles (defined once, in lib/contract/staff-roles.ts). */
export const ROLES = STAFF_ROLES;
export type Role = StaffRole;

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
}

/** The navigation in display order. */
export const NAV_ITEMS: readonly NavItem[] = [
  { area: "overview", href: "/", label: "Overview" },
  { area: "events", href: "/events", label: "Events" },
  { area: "compose", href: "/compose", label: "Compose" },
  { area: "sandbox", href: "/sandbox", label: "Sandbox" },
  { area: "webhooks", href: "/webhooks", label: "Webhooks" },
  { area: "settings", href: "/settings", label: "Settings" },
];

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

export function canAccess(role: Role | undefined, area: Area): boolean {
  return role !== undefined && AREA_ROLES[area].includes(role);
}

/** Navigation entries the role may use. */
export function navFor(role: Role): NavItem[] {
  return NAV_ITEMS.filter((item) => canAccess(role, item.area));
}

/** Where a role lands after sign-in: the first page it may use. */
export function homeFor(role: Role): string {
  return canAccess(role, "overview") ? "/" : "/events";
}
