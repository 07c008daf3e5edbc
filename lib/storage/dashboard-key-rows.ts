import { eq } from "drizzle-orm";
import type { Queryable } from "./database";
import { dashboardApiKeys } from "./schema";

/** The reads and writes of dashboard_api_keys, each account's dashboard key sealed (lib/domain/staff/bootstrap.ts, dashboard-auth-secret.ts). */

export type DashboardKeyRow = typeof dashboardApiKeys.$inferSelect;

export async function selectDashboardKeyRow(q: Queryable, accountId: string): Promise<DashboardKeyRow | undefined> {
  const [row] = await q.db.select().from(dashboardApiKeys).where(eq(dashboardApiKeys.accountId, accountId));
  return row;
}

export async function selectDashboardKeyRows(q: Queryable): Promise<DashboardKeyRow[]> {
  return q.db.select().from(dashboardApiKeys);
}

/** The account's dashboard key from now on (made new: created_at now). */
export async function upsertDashboardKeyRow(q: Queryable, accountId: string, apiKeyId: string, sealed: string): Promise<void> {
  await q.db
    .insert(dashboardApiKeys)
    .values({ accountId, apiKeyId, sealed })
    .onConflictDoUpdate({ target: dashboardApiKeys.accountId, set: { apiKeyId, sealed, createdAt: new Date() } });
}

/** The same key sealed again. */
export async function updateDashboardKeySeal(q: Queryable, accountId: string, sealed: string): Promise<void> {
  await q.db.update(dashboardApiKeys).set({ sealed }).where(eq(dashboardApiKeys.accountId, accountId));
}

