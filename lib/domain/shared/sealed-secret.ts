import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Seals a secret for storage (the dashboard's per-account API keys, ADR 0510):
 * AES-256-GCM under a key derived with HKDF-SHA256 from the dashboard's
 * secret. A copy of the database alone does not open it only because that
 * secret is never in the database: AUTH_SECRET, or the file a generated one
 * is kept in, in the data directory (docs/adr/0508; before it, the generated
 * secret sat in instance_settings beside the keys it sealed). Format:
 * `v1.<iv>.<tag>.<ciphertext>` in base64url. `purpose` separates the derived
 * keys of different uses of the same secret.
 */

function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "mailroom", purpose, 32));
}

export function sealSecret(plain: string, secret: string, purpose: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(secret, purpose), iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
}

/** The sealed value, or undefined when it was sealed under another secret or is damaged. */
export function unsealSecret(sealed: string, secret: string, purpose: string): string | undefined {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== "v1" || iv === undefined || tag === undefined || body === undefined) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", deriveKey(secret, purpose), Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}
