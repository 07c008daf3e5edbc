/**
 * The loose check of an address typed by a person (staff sign-in names,
 * suppressions added in the dashboard): one `@` with
 * something before it, no whitespace, and a dot inside the domain. The same
 * as /^[^\s@]+@[^\s@]+\.[^\s@]+$/, without its quadratic backtracking on
 * long input. Not the API's address parser (addressparser, docs/adr/0103).
 */
export function looksLikeEmailAddress(value: string): boolean {
  if (/\s/.test(value)) return false;
  const at = value.indexOf("@");
  if (at <= 0 || value.includes("@", at + 1)) return false;
  const domain = value.slice(at + 1);
  // A dot with at least one character on each side.
  const dot = domain.indexOf(".", 1);
  return dot !== -1 && dot <= domain.length - 2;
}
