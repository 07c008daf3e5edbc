import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signed addresses (pure) that name one recipient row:
 * - VERP return paths `bounces+<recipientId base36>-<sig>@<bounce domain>`:
 *   a bounce sent there is about that recipient;
 * - mailto unsubscribe addresses `unsubscribe+<id>-<sig>@<bounce domain>`.
 * The signature (64 bits of HMAC, lowercase hex: relays may case-fold local
 * parts) stops anyone from attributing mail to other recipients.
 */

export type AddressPurpose = "bounces" | "unsubscribe";

/** 64 bits of HMAC in lowercase hex; `reply` signs a message id (per-message reply addresses, docs/adr/0804). */
function signature(secret: string, purpose: AddressPurpose | "reply", subject: number | string): string {
  const label = purpose === "bounces" ? "mailroom-verp" : `mailroom-${purpose}`;
  return createHmac("sha256", secret).update(`${label}:${subject}`).digest("hex").slice(0, 16);
}

const SIGNATURE_CHARS = 16;
/** RFC 4648 base32 in lowercase: survives relays that case-fold local parts. */
const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";
/** A message id (uuid, 16 bytes) in base32: 26 characters. */
const ID_CHARS = 26;
/** `r-` + id + signature: the whole `+tag` of a per-message reply address. */
const REPLY_TAG_PREFIX = "r-";
export const REPLY_TAG_LENGTH = REPLY_TAG_PREFIX.length + ID_CHARS + SIGNATURE_CHARS;

function uuidToBase32(uuid: string): string | undefined {
  const hex = uuid.replaceAll("-", "").toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return undefined;
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of Buffer.from(hex, "hex")) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return bits > 0 ? out + BASE32[(value << (5 - bits)) & 31] : out;
}

function base32ToUuid(text: string): string | undefined {
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const ch of text) {
    const v = BASE32.indexOf(ch);
    if (v < 0) return undefined;
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
    value &= (1 << bits) - 1;
  }
  // Leftover bits must be zero: one id has exactly one spelling.
  if (bytes.length !== 16 || value !== 0) return undefined;
  const hex = Buffer.from(bytes).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The `+tag` of a message's reply address: `r-<message id in base32><signature>` (docs/adr/0804); undefined for a non-uuid id. */
export function replyTag(secret: string, messageId: string): string | undefined {
  const id = uuidToBase32(messageId);
  return id && `${REPLY_TAG_PREFIX}${id}${signature(secret, "reply", messageId.toLowerCase())}`;
}

/**
 * The message id a reply address's `+tag` names, or undefined when the tag is
 * not of that shape or its signature does not verify. The tag comes from an
 * address already split by the address parser; the shape checked here is
 * fixed in length and anchored.
 */
export function parseReplyTag(secret: string, tag: string): string | undefined {
  if (tag.length !== REPLY_TAG_LENGTH) return undefined;
  const m = /^r-([a-z2-7]{26})([0-9a-f]{16})$/.exec(tag.toLowerCase());
  if (!m) return undefined;
  const id = base32ToUuid(m[1]!);
  if (!id) return undefined;
  const expected = Buffer.from(signature(secret, "reply", id));
  return timingSafeEqual(expected, Buffer.from(m[2]!)) ? id : undefined;
}

export function signedAddress(secret: string, purpose: AddressPurpose, recipientId: number, domain: string): string {
  return `${purpose}+${recipientId.toString(36)}-${signature(secret, purpose, recipientId)}@${domain}`;
}

/** The recipient id of a signed address of that purpose, or undefined if it is none of ours or forged. */
export function parseSignedAddress(secret: string, purpose: AddressPurpose, address: string): number | undefined {
  const at = address.lastIndexOf("@");
  const local = (at >= 0 ? address.slice(0, at) : address).trim().toLowerCase().replace(/^</, "");
  const prefix = `${purpose}+`;
  if (!local.startsWith(prefix)) return undefined;
  const m = /^([0-9a-z]{1,12})-([0-9a-f]{16})$/.exec(local.slice(prefix.length));
  if (!m) return undefined;
  const id = Number.parseInt(m[1]!, 36);
  const expected = Buffer.from(signature(secret, purpose, id));
  const given = Buffer.from(m[2]!);
  return timingSafeEqual(expected, given) ? id : undefined;
}

export const verpAddress = (secret: string, recipientId: number, bounceDomain: string) =>
  signedAddress(secret, "bounces", recipientId, bounceDomain);

export const parseVerpAddress = (secret: string, address: string) => parseSignedAddress(secret, "bounces", address);

/** The bounce domain of a sender domain: MAILROOM_BOUNCE_DOMAIN, else `bounces.<from domain>` (the MX record sender-domains.ts tells operators to publish). */
export function bounceDomainFor(fromDomain: string, configured?: string): string {
  return configured || `bounces.${fromDomain}`;
}
