/** Sending limits per plan (docs/contract.md §6.1), plus `unlimited` for self-hosted installs and benchmarks. */
export interface Limits {
  perMinute: number | null;
  perHour: number | null;
  perDay: number | null;
}

export const PLANS = {
  trial: { perMinute: 10, perHour: 25, perDay: 50 },
  starter: { perMinute: 50, perHour: 300, perDay: 500 },
  business: { perMinute: 120, perHour: 500, perDay: 1000 },
  growth: { perMinute: 200, perHour: 1000, perDay: 2500 },
  unlimited: { perMinute: null, perHour: null, perDay: null },
} as const satisfies Record<string, Limits>;

export type PlanName = keyof typeof PLANS;

export function isPlanName(value: string): value is PlanName {
  return Object.hasOwn(PLANS, value);
}

/** Accepts the spec's spelling ("Trial") as well as ours ("trial"). */
export function parsePlan(value: string): PlanName | undefined {
  const v = value.trim().toLowerCase();
  return isPlanName(v) ? v : undefined;
}

/** The account's overrides (set-limits) win over its plan, window by window. */
export function effectiveLimits(
  plan: string,
  overrides: { limitPerMinute: number | null; limitPerHour: number | null; limitPerDay: number | null },
): Limits {
  const base: Limits = isPlanName(plan) ? PLANS[plan] : PLANS.trial;
  return {
    perMinute: overrides.limitPerMinute ?? base.perMinute,
    perHour: overrides.limitPerHour ?? base.perHour,
    perDay: overrides.limitPerDay ?? base.perDay,
  };
}
