import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signed tracking tokens (pure). A token names one recipient of one message
 * and what it is for: `o` open pixel, `c` click on the message's link number
 * `link`, `u` unsubscribe. It carries no URL: the click redirect looks the
 * URL up in the stored message, so a token can never point anywhere else.
 *
 * Format: `<kind>.<messageId hex>.<recipientId base36>[.<link base36>].<sig>`
 * with sig = first 128 bits of HMAC-SHA256(secret, body), base64url.
 */

export type TrackingKind = "o" | "c" | "u";

export interface TrackingToken {
  kind: TrackingKind;
  messageId: string;
  recipientId: number;
  /** Index of the link in the HTML body (clicks only). */
  link?: number;
}

const SIG_LENGTH = 22;

function signature(secret: string, body: string): string {
  return createHmac("sha256", secret).update(`mailroom-tracking:${body}`).digest("base64url").slice(0, SIG_LENGTH);
}

export function encodeTrackingToken(secret: string, token: TrackingToken): string {
  const hex = token.messageId.replace(/-/g, "").toLowerCase();
  const parts: string[] = [token.kind, hex, token.recipientId.toString(36)];
  if (token.kind === "c") parts.push((token.link ?? 0).toString(36));
  const body = parts.join(".");
  return `${body}.${signature(secret, body)}`;
}

/** The token's content when its signature is valid, else undefined. */
export function decodeTrackingToken(secret: string, text: string): TrackingToken | undefined {
  if (typeof text !== "string" || text.length > 200) return undefined;
  const parts = text.split(".");
  const sig = parts.pop();
  if (!sig || sig.length !== SIG_LENGTH) return undefined;
  const body = parts.join(".");
  const expected = Buffer.from(signature(secret, body));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const [kind, hex, rid, link] = parts;
  if (kind !== "o" && kind !== "c" && kind !== "u") return undefined;
  if (!hex || !/^[0-9a-f]{32}$/.test(hex)) return undefined;
  if (!rid || !/^[0-9a-z]{1,12}$/.test(rid)) return undefined;
  if ((kind === "c") !== (parts.length === 4)) return undefined;
  const messageId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  const token: TrackingToken = { kind, messageId, recipientId: Number.parseInt(rid, 36) };
  if (kind === "c") {
    if (!link || !/^[0-9a-z]{1,6}$/.test(link)) return undefined;
    token.link = Number.parseInt(link, 36);
  }
  return token;
}
