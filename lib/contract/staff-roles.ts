/**
 * The staff roles of the dashboard (docs/ARCHITECTURE.md, "The dashboard"): the one list,
 * read by the staff_users column type, the domain's role checks, Auth.js
 * (lib/auth/roles.ts, what each role may use) and AUTH_OIDC_ROLE. Not part
 * of the public API; it lives here because storage may import only the
 * contract's vocabulary.
 */
export const STAFF_ROLES = ["admin", "support", "marketing"] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];
