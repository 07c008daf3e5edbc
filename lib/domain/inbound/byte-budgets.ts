/**
 * Byte budgets of inbound mail (docs/adr/0807): the raw MIME stored per
 * client address (IPv6: its /64) and per account in a UTC hour, each
 * `MAILROOM_INBOUND_BYTES_PER_*_HOUR` at most (0: no budget). Pure: the
 * counters are read and written by lib/domain/inbound/receive.ts in the
 * transaction that stores the messages.
 */

export interface ByteBudgets {
  perAddressHour: number;
  perAccountHour: number;
}

export type BudgetScope = "address" | "account";

export interface BudgetKey {
  scope: BudgetScope;
  key: string;
}

/** One message's claim: its raw bytes, its client's address key, the accounts whose routes it reaches. */
export interface BudgetClaim {
  bytes: number;
  address: string;
  accounts: readonly string[];
}

/** The hour a counter is of: Unix seconds at its start. */
export const hourStartOf = (ms: number): number => Math.floor(ms / 3_600_000) * 3600;

const idOf = (k: BudgetKey) => `${k.scope}\u0000${k.key}`;

const limitOf = (scope: BudgetScope, budgets: ByteBudgets) => (scope === "address" ? budgets.perAddressHour : budgets.perAccountHour);

function keysOfClaim(claim: BudgetClaim, budgets: ByteBudgets): BudgetKey[] {
  const keys: BudgetKey[] = [];
  if (budgets.perAddressHour > 0) keys.push({ scope: "address", key: claim.address });
  if (budgets.perAccountHour > 0) for (const account of new Set(claim.accounts)) keys.push({ scope: "account", key: account });
  return keys;
}

/** The counters the claims touch, each once, in one order (every transaction locks them in it, so none waits on another in a cycle). */
export function budgetKeysOf(claims: readonly BudgetClaim[], budgets: ByteBudgets): BudgetKey[] {
  const byId = new Map<string, BudgetKey>();
  for (const claim of claims) for (const k of keysOfClaim(claim, budgets)) byId.set(idOf(k), k);
  return [...byId.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, k]) => k);
}

export interface Admission {
  /** Per claim, in order: undefined when it fits, else the counter whose budget it would pass. */
  refused: (BudgetKey | undefined)[];
  /** Bytes to add to each counter for the claims that fit. */
  added: { key: BudgetKey; bytes: number }[];
}

/**
 * Admits the claims in order against the counters' bytes `used` so far
 * (keyed as budgetKeysOf's keys; a missing one has used nothing): a claim
 * fits when every counter it touches stays within its budget with it.
 */
export function admitClaims(claims: readonly BudgetClaim[], used: ReadonlyMap<string, number>, budgets: ByteBudgets): Admission {
  const totals = new Map<string, { key: BudgetKey; bytes: number; added: number }>();
  const counter = (k: BudgetKey) => {
    const id = idOf(k);
    let c = totals.get(id);
    if (!c) totals.set(id, (c = { key: k, bytes: used.get(id) ?? 0, added: 0 }));
    return c;
  };
  const refused = claims.map((claim) => {
    const counters = keysOfClaim(claim, budgets).map(counter);
    const over = counters.find((c) => c.bytes + claim.bytes > limitOf(c.key.scope, budgets));
    if (over) return over.key;
    for (const c of counters) {
      c.bytes += claim.bytes;
      c.added += claim.bytes;
    }
    return undefined;
  });
  return { refused, added: [...totals.values()].filter((c) => c.added > 0).map((c) => ({ key: c.key, bytes: c.added })) };
}

/** The map key of a counter in `used` (admitClaims). */
export const budgetIdOf = idOf;
