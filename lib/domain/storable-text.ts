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
