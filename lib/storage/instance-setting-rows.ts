import { eq } from "drizzle-orm";
import type { Queryable } from "./database";
import { instanceSettings } from "./schema";
import type { Tx } from "./transaction";

/** The reads and writes of instance_settings (key → value); what each key means is decided where it is used. */

export type InstanceSettingRow = typeof instanceSettings.$inferSelect;

export async function selectSetting(q: Queryable, key: string): Promise<InstanceSettingRow | undefined> {
  const [row] = await q.db.select().from(instanceSettings).where(eq(instanceSettings.key, key));
  return row;
}

/** selectSetting, the row locked until the caller's transaction ends. */
export async function selectSettingForUpdate(tx: Tx, key: string): Promise<InstanceSettingRow | undefined> {
  const [row] = await tx.db.select().from(instanceSettings).where(eq(instanceSettings.key, key)).for("update");
  return row;
}

/** Inserts the setting unless the key has one; true when this inserted it. */
export async function insertSettingIfAbsent(q: Queryable, key: string, value: string): Promise<boolean> {
  const inserted = await q.db.insert(instanceSettings).values({ key, value }).onConflictDoNothing().returning({ key: instanceSettings.key });
  return inserted.length > 0;
}

export async function insertSetting(q: Queryable, key: string, value: string): Promise<void> {
  await q.db.insert(instanceSettings).values({ key, value });
}

export async function updateSetting(q: Queryable, key: string, value: string): Promise<void> {
  await q.db.update(instanceSettings).set({ value }).where(eq(instanceSettings.key, key));
}

/** True when the key had a setting. */
export async function deleteSetting(q: Queryable, key: string): Promise<boolean> {
  const deleted = await q.db.delete(instanceSettings).where(eq(instanceSettings.key, key)).returning({ key: instanceSettings.key });
  return deleted.length > 0;
}
