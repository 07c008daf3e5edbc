import { STAFF_ROLES, type StaffRole } from "../contract/staff-roles";

/**
 * Staff roles and what each may use (docs/ARCHITECTURE.md, "The dashboard"): admin
 * everything; support events, messages, compose, templates and sandbox; marketing the
 * overview, deliverability and events, read-only. Pure data and functions: the navigation,
 * lib/dashboard/access.ts and the tests all read this one table; the role is per account (ADR 0510).
 */

/** The staff roles (defined once, in lib/contract/staff-roles.ts). */
export const ROLES = STAFF_ROLES;
export type Role = StaffRole;

export type Area = "overview" | "deliverability" | "events" | "messages" | "compose" | "templates" | "scheduled" | "sandbox" | "inbound" | "webhooks" | "settings";

export const AREA_ROLES: Record<Area, readonly Role[]> = {
  overview: ["admin", "marketing"],
  // Rates against the guardrails, domain health, DMARC sources, the bulk-sender readiness: read-only, as the overview.
  deliverability: ["admin", "marketing"],
  events: ["admin", "support", "marketing"],
  messages: ["admin", "support"],
  compose: ["admin", "support"],
  // The account's scheduled sends, with a Cancel button (docs/contract.md §15).
  scheduled: ["admin", "support"],
  sandbox: ["admin", "support"],
  // Received mail and its posts (docs/contract.md §13): read and retried by support, who answers the replies;
  // adding or deleting a route names a URL, as a webhook does, so that part needs the webhooks area (admin).
  inbound: ["admin", "support"],
  webhooks: ["admin"],
  settings: ["admin"],
  // Templates are what Compose starts from: the same roles (docs/contract.md §14).
  templates: ["admin", "support"],
};

/**
 * The headings of the dashboard's navigation, in display order: an account's
 * areas fall into the first three; "Instance" holds what is above the
 * accounts (the owner's Accounts page, added by the shell).
 */
export const NAV_GROUPS = ["Activity", "Send", "Configure", "Instance"] as const;
export type NavGroup = (typeof NAV_GROUPS)[number];

export interface NavItem {
  area: Area;
  href: string;
  label: string;
  group: NavGroup;
}

/** The navigation in display order (a new area goes into its group here). */
export const NAV_ITEMS: readonly NavItem[] = [
  { area: "overview", href: "/", label: "Overview", group: "Activity" },
  { area: "deliverability", href: "/deliverability", label: "Deliverability", group: "Activity" },
  { area: "events", href: "/events", label: "Events", group: "Activity" },
  { area: "sandbox", href: "/sandbox", label: "Sandbox", group: "Activity" },
  { area: "inbound", href: "/inbound", label: "Inbound", group: "Activity" },
  { area: "compose", href: "/compose", label: "Compose", group: "Send" },
  { area: "templates", href: "/templates", label: "Templates", group: "Send" },
  { area: "scheduled", href: "/scheduled", label: "Scheduled", group: "Send" },
  { area: "webhooks", href: "/webhooks", label: "Webhooks", group: "Configure" },
  { area: "settings", href: "/settings", label: "Settings", group: "Configure" },
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

/**
 * Entries under their group's heading, groups in NAV_GROUPS order, each
 * group's entries in the order given; a group without entries is left out
 * (a role sees no heading over nothing).
 */
export function groupNav<T extends { group: NavGroup }>(items: readonly T[]): { group: NavGroup; items: T[] }[] {
  return NAV_GROUPS.map((group) => ({ group, items: items.filter((item) => item.group === group) })).filter((g) => g.items.length > 0);
}

/** Where a role lands after sign-in: the first page it may use. */
export function homeFor(role: Role): string {
  return canAccess(role, "overview") ? "/" : "/events";
}
