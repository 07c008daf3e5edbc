import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "../storage/database";
import { instanceSettings } from "../storage/schema";

/**
 * The secret that signs and encrypts dashboard sessions when AUTH_SECRET is
 * not configured: generated once and kept in `instance_settings`, so that
 * every app process of the installation signs with the same secret and
 * sessions survive restarts. The first writer wins (ON CONFLICT DO NOTHING),
 * then everyone reads the stored value.
 */
export const AUTH_SECRET_SETTING = "dashboard.auth_secret";

export async function getOrCreateAuthSecret(db: Db): Promise<string> {
  await db
    .insert(instanceSettings)
    .values({ key: AUTH_SECRET_SETTING, value: randomBytes(32).toString("base64url") })
    .onConflictDoNothing();
  const [row] = await db.select().from(instanceSettings).where(eq(instanceSettings.key, AUTH_SECRET_SETTING));
  return row!.value;
}
