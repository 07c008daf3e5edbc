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

function signature(secret: string, purpose: AddressPurpose, recipientId: number): string {
  const label = purpose === "bounces" ? "mailroom-verp" : `mailroom-${purpose}`;
  return createHmac("sha256", secret).update(`${label}:${recipientId}`).digest("hex").slice(0, 16);
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
