import { randomBytes } from "node:crypto";
import type { Queryable } from "../../storage/database";
import { insertSettingIfAbsent, selectSetting } from "../../storage/instance-setting-rows";

/**
 * The secret that signs tracking tokens and VERP addresses: the configured
 * MAILROOM_TRACKING_SECRET, else one generated on first use and kept in
 * instance_settings, so every process on the database signs and verifies
 * with the same key and links keep working across restarts.
 */
const KEY = "tracking_secret";

export async function getTrackingSecret(q: Queryable, configured?: string): Promise<string> {
  if (configured) return configured;
  await insertSettingIfAbsent(q, KEY, randomBytes(32).toString("base64url"));
  return (await selectSetting(q, KEY))!.value;
}

/** One per process (buildAppContext, `ctx.trackingSecret`): read once, then the same answer (the secret never changes). */
export function createTrackingSecretSource(q: Queryable, configured?: string): () => Promise<string> {
  let secret: Promise<string> | undefined;
  return () => {
    secret ??= getTrackingSecret(q, configured).catch((err: unknown) => {
      secret = undefined; // a database outage: asked again next time
      throw err;
    });
    return secret;
  };
}
