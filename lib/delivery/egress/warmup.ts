import { z } from "zod";

/**
 * The warm-up schedule of egress addresses (pure; docs/egress.md, docs/adr/0327):
 * on day N since an address's warm-up began, how many copies it may send in a
 * UTC day and in a UTC hour to one destination provider (destinations/
 * destination.ts: `gmail`, `outlook`, or a domain's MX host set). A schedule is
 * a list of steps, each from its day on; past the last step an address is warm
 * (no cap). Providers may have steps of their own; the others take `default`.
 */

export interface WarmupStep {
  /** The first day (1 = the day the address was added) this step applies. */
  day: number;
  daily: number;
  hourly: number;
}

export interface WarmupSchedule {
  /** The day from which an address has no cap (its schedule's end). */
  warmAfterDay: number;
  default: WarmupStep[];
  providers: Record<string, WarmupStep[]>;
}

/** A cap of one address towards one provider; `Infinity` is none. */
export interface Caps {
  daily: number;
  hourly: number;
}

export const UNCAPPED: Caps = { daily: Number.POSITIVE_INFINITY, hourly: Number.POSITIVE_INFINITY };

/**
 * Conservative: 50 a day (8 an hour) per provider on day 1, roughly doubling
 * every two to three days, warm on day 30. The hourly cap is about a sixth of
 * the daily one, so a day's volume spreads over at least six hours.
 */
export const DEFAULT_WARMUP: WarmupSchedule = {
  warmAfterDay: 30,
  default: [
    { day: 1, daily: 50, hourly: 8 },
    { day: 2, daily: 100, hourly: 16 },
    { day: 3, daily: 200, hourly: 33 },
    { day: 4, daily: 400, hourly: 66 },
    { day: 5, daily: 700, hourly: 116 },
    { day: 6, daily: 1_000, hourly: 166 },
    { day: 8, daily: 2_000, hourly: 333 },
    { day: 10, daily: 4_000, hourly: 666 },
    { day: 13, daily: 8_000, hourly: 1_333 },
    { day: 16, daily: 15_000, hourly: 2_500 },
    { day: 20, daily: 30_000, hourly: 5_000 },
    { day: 25, daily: 60_000, hourly: 10_000 },
  ],
  providers: {},
};

const DAY_MS = 24 * 60 * 60_000;
const HOUR_MS = 60 * 60_000;

/** The day of an address's warm-up at `now`: 1 on the UTC day it began, 2 the next… */
export function warmupDay(warmupFrom: Date | number, now: number): number {
  const from = Math.floor(Number(warmupFrom) / DAY_MS);
  return Math.max(1, Math.floor(now / DAY_MS) - from + 1);
}

/** The caps of an address on `day` towards `provider`. */
export function capsOn(schedule: WarmupSchedule, day: number, provider: string): Caps {
  if (day >= schedule.warmAfterDay) return UNCAPPED;
  const steps = (Object.hasOwn(schedule.providers, provider) ? schedule.providers[provider] : undefined) ?? schedule.default;
  let step: WarmupStep | undefined;
  for (const s of steps) if (s.day <= day && (!step || s.day > step.day)) step = s;
  // Before the first step (a schedule starting later than day 1): the first step's caps.
  step ??= steps.reduce<WarmupStep | undefined>((a, s) => (!a || s.day < a.day ? s : a), undefined);
  return step ? { daily: step.daily, hourly: step.hourly } : UNCAPPED;
}

/** The start of the UTC hour and of the UTC day of `now`, and the ends. */
export const hourStart = (now: number): number => Math.floor(now / HOUR_MS) * HOUR_MS;
export const dayStart = (now: number): number => Math.floor(now / DAY_MS) * DAY_MS;
export const nextHour = (now: number): number => hourStart(now) + HOUR_MS;
export const nextDay = (now: number): number => dayStart(now) + DAY_MS;

const count = z.number().int().min(0).max(1_000_000_000);
const stepSchema = z.object({ day: z.number().int().min(1).max(3650), daily: count, hourly: count }).strict();
const stepsSchema = z.array(stepSchema).min(1).max(400);
const fileSchema = z
  .object({
    warmAfterDay: z.number().int().min(1).max(3650),
    default: stepsSchema,
    providers: z.record(z.string().min(1).max(1000), stepsSchema).optional(),
  })
  .strict();

/** At most this many bytes of a schedule file are read. */
export const MAX_WARMUP_FILE_BYTES = 256 * 1024;

/** A schedule file's JSON (MAILROOM_WARMUP_FILE), validated; throws with what is wrong. */
export function parseWarmupSchedule(text: string): WarmupSchedule {
  if (text.length > MAX_WARMUP_FILE_BYTES) throw new Error(`a warm-up schedule is at most ${MAX_WARMUP_FILE_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`the warm-up schedule is not JSON: ${(err as Error).message}`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`the warm-up schedule: ${issue.path.join(".") || "(top)"}: ${issue.message}`);
  }
  const providers: Record<string, WarmupStep[]> = {};
  for (const [k, v] of Object.entries(parsed.data.providers ?? {})) providers[k.toLowerCase()] = v;
  return { warmAfterDay: parsed.data.warmAfterDay, default: parsed.data.default, providers };
}
