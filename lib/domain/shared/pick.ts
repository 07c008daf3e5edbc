/**
 * The named members of `row` and no other: what a use case hands out of a
 * storage row (a key's hash, a user's password hash stay behind). One list of
 * names instead of a copy of each member by hand.
 */
export function pick<T extends object, K extends keyof T>(row: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) out[key] = row[key];
  return out;
}
