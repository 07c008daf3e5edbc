/**
 * The character rules of POST /email that the API and the dashboard's compose
 * form share (docs/contract.md §5): how a length is counted, which text can be
 * stored, what an email address and a display name may hold. One definition,
 * so that the form refuses exactly what the API refuses
 * (app/(dashboard)/a/[account]/compose/_lib/draft-agrees-with-api.test.ts).
 * Pure and free of Node APIs (the browser runs it too). Imports nothing.
 */

/** RFC 5322's line limit: no address string, display name, email, header name or value may be longer. */
export const MAX_LINE_LENGTH = 998;

/**
 * A length as the contract counts it (docs/contract.md §5.7, §5.10): in
 * characters, i.e. Unicode code points, so an emoji (two UTF-16 units) is
 * one character and a combining mark is one of its own. Counted no further
 * than `max + 1`: a string of ten megabytes is not walked through.
 */
export function codePointLength(s: string, max: number): number {
  if (s.length > 2 * max) return max + 1; // at least length / 2 code points
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** At most `max` characters (code points, see codePointLength). */
export const withinCodePoints = (s: string, max: number) => codePointLength(s, max) <= max;

/**
 * Text PostgreSQL can store: no NUL (text and jsonb refuse U+0000) and no
 * unpaired UTF-16 surrogate (not encodable as UTF-8; JSON.parse lets `"\ud800"`
 * through). Input that fails this is malformed, answered with the contract's
 * error for its field, never sent to the database (where it would be a 500).
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this rejects
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isStorableText(s: string): boolean {
  return !UNSTORABLE.test(s);
}

/** UTF-8 octets of a storable string (a surrogate pair is 4, like the code point it encodes). */
export function utf8Length(s: string): number {
  let n = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

// atext of RFC 5322 plus any non-ASCII character (RFC 6531), dot-separated.
const LOCAL_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u{80}-\u{10FFFF}-]+$/u;
// An LDH label, or an internationalised one (letters and digits of any script).
const DOMAIN_LABEL = /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}\p{M}-]*[\p{L}\p{N}\p{M}])?)$/u;
// eslint-disable-next-line no-control-regex -- control characters are exactly what this rejects
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * The email address rules of docs/contract.md §5.17: one `@`, a non-empty
 * dot-atom local part of at most 64 octets, a domain with at least one dot
 * and valid labels, at most 254 octets in all; UTF-8 local parts and
 * internationalised domains are accepted. `email` is already trimmed.
 */
export function isValidEmail(email: string): boolean {
  if (email.length > MAX_LINE_LENGTH || utf8Length(email) > 254) return false;
  if (CONTROL.test(email) || /\s/u.test(email) || !isStorableText(email)) return false;
  const at = email.indexOf("@");
  if (at <= 0 || at !== email.lastIndexOf("@")) return false;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (utf8Length(local) > 64) return false;
  if (!local.split(".").every((atom) => atom.length > 0 && LOCAL_ATOM.test(atom))) return false;
  if (utf8Length(domain) > 253) return false;
  const labels = domain.split(".");
  if (labels.length < 2) return false;
  return labels.every((l) => l.length > 0 && utf8Length(l) <= 63 && DOMAIN_LABEL.test(l));
}

/** A display name that can be used: at most 998 UTF-16 units, no control character, storable. */
export function isUsableName(name: string): boolean {
  return name.length <= MAX_LINE_LENGTH && !CONTROL.test(name) && isStorableText(name);
}
