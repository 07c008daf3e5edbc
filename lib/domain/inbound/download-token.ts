import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The signed, expiring download URL of a large inbound attachment
 * (docs/contract.md §13.4): `<message id>.<attachment index>.<expiry in Unix
 * seconds>.<HMAC-SHA256, base64url>`, keyed with the instance's tracking
 * secret under its own purpose. Pure.
 */

const PURPOSE = "inbound-attachment";

function mac(secret: string, body: string): string {
  return createHmac("sha256", secret).update(`${PURPOSE}:${body}`).digest("base64url");
}

export function signDownloadToken(secret: string, messageId: string, index: number, expiresAt: Date): string {
  const body = `${messageId}.${index}.${Math.floor(expiresAt.getTime() / 1000)}`;
  return `${body}.${mac(secret, body)}`;
}

/** The message and attachment a token names, or undefined when it is forged, malformed or expired. */
export function verifyDownloadToken(secret: string, token: string, now: Date = new Date()): { messageId: string; index: number } | undefined {
  if (token.length > 200) return undefined;
  const parts = token.split(".");
  if (parts.length !== 4) return undefined;
  const [messageId, indexText, expText, signature] = parts as [string, string, string, string];
  const expected = Buffer.from(mac(secret, `${messageId}.${indexText}.${expText}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const index = Number(indexText);
  const exp = Number(expText);
  if (!Number.isSafeInteger(index) || index < 0 || !Number.isSafeInteger(exp) || exp * 1000 <= now.getTime()) return undefined;
  return { messageId, index };
}
