import type { CheckStatus } from "@/lib/contract/domains";

const ORDER: Record<CheckStatus, number> = { fail: 0, warn: 1, pass: 2 };

/** Checks with what needs fixing first: fail, then warn, then pass, each group in the server's order. */
export function failingFirst<T extends { Status: CheckStatus }>(checks: readonly T[]): T[] {
  return checks.map((c, i) => [c, i] as const).sort(([a, i], [b, j]) => ORDER[a.Status] - ORDER[b.Status] || i - j).map(([c]) => c);
}
