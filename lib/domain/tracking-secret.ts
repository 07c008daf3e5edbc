import { randomBytes } from "node:crypto";
import type { Db } from "../storage/database";
import { instanceSettings } from "../storage/schema";
import { eq } from "drizzle-orm";

/**
 * The secret that signs tracking tokens and VERP addresses: the configured
 * MAILROOM_TRACKING_SECRET, else one generated on first use and kept in
 * instance_settings, so every process on the database signs and verifies
 * with the same key and links keep working across restarts.
 */
const KEY = "tracking_secret";
const cache = new WeakMap<object, string>();

export async function getTrackingSecret(db: Db, configured?: string): Promise<string> {
  if (configured) return configured;
  const hit = cache.get(db);
  if (hit) return hit;
  await db.insert(instanceSettings).values({ key: KEY, value: randomBytes(32).toString("base64url") }).onConflictDoNothing();
  const [row] = await db.select().from(instanceSettings).where(eq(instanceSettings.key, KEY));
  cache.set(db, row!.value);
  return row!.value;
}
