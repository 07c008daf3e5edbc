/**
 * The `_mta-sts.<domain>` TXT record (RFC 8461 §3.1): `v=STSv1; id=<1-32
 * letters and digits>;` plus extensions. A domain with no such record, or
 * with more than one, has no MTA-STS policy. Parsed by splitting on `;` and
 * the first `=`: linear, and bounded by MAX_RECORD_LENGTH before any parsing.
 */

export interface StsRecord {
  id: string;
}

/** A TXT record longer than this is no MTA-STS record (real ones are ~40 bytes). */
export const MAX_RECORD_LENGTH = 1024;

const isIdChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** One TXT record (its character strings joined, RFC 8461 §3.1); undefined if it is not a valid STSv1 record. */
export function parseStsRecord(text: string): StsRecord | undefined {
  if (text.length > MAX_RECORD_LENGTH) return undefined;
  const fields = text.split(";").map((f) => f.trim());
  // The version must be the first field, exactly.
  if (fields[0] !== "v=STSv1") return undefined;
  let id: string | undefined;
  for (const field of fields.slice(1)) {
    if (field === "") continue;
    const eq = field.indexOf("=");
    if (eq <= 0) return undefined;
    const name = field.slice(0, eq).trim();
    const value = field.slice(eq + 1).trim();
    if (name === "id") {
      if (id !== undefined || value.length < 1 || value.length > 32) return undefined;
      for (let i = 0; i < value.length; i++) if (!isIdChar(value.charCodeAt(i))) return undefined;
      id = value;
    }
  }
  return id === undefined ? undefined : { id };
}

/** The domain's record among its TXT records (each a list of character strings): exactly one STSv1 record, else none. */
export function stsRecordOf(records: readonly (readonly string[])[]): StsRecord | undefined {
  const candidates = records.map((chunks) => chunks.join("")).filter((t) => t.startsWith("v=STSv1"));
  if (candidates.length !== 1) return undefined;
  return parseStsRecord(candidates[0]!);
}
