import { capsOn, nextDay, nextHour, warmupDay, type Caps, type WarmupSchedule } from "./warmup";

/**
 * Which address of a pool sends a copy to a provider (pure; docs/adr/0327):
 * one under both its caps, the one with the smallest used fraction of them
 * (load spreads, a warm address takes more than a new one), ties to the one
 * that sent least today, then in the pool's order; none under its caps: the
 * copy waits until the earliest moment one frees (the next UTC hour for an
 * hourly cap, the next UTC day for a daily one). A wait is never a failure.
 */

export interface Candidate {
  address: string;
  warmupFrom: Date;
  /** Copies to the provider in the current UTC hour and day (counted, including those in flight). */
  hour: number;
  day: number;
}

export type Choice =
  | { ok: true; address: string; caps: Caps }
  | { ok: false; until: number; reason: string };

export function chooseAddress(candidates: readonly Candidate[], provider: string, schedule: WarmupSchedule, now: number): Choice {
  let best: { c: Candidate; caps: Caps; used: number } | undefined;
  let until = Number.POSITIVE_INFINITY;
  let why = "";
  for (const c of candidates) {
    const day = warmupDay(c.warmupFrom, now);
    const caps = capsOn(schedule, day, provider);
    if (c.day >= caps.daily || c.hour >= caps.hourly) {
      const dailyFull = c.day >= caps.daily;
      const frees = dailyFull ? nextDay(now) : nextHour(now);
      if (frees < until) {
        until = frees;
        why = dailyFull
          ? `${c.address} reached its warm-up day-${day} cap of ${caps.daily} a day to ${provider}`
          : `${c.address} reached its warm-up day-${day} cap of ${caps.hourly} an hour to ${provider}`;
      }
      continue;
    }
    const used = Math.max(c.day / caps.daily, c.hour / caps.hourly);
    if (!best || used < best.used || (used === best.used && c.day < best.c.day)) best = { c, caps, used };
  }
  if (best) return { ok: true, address: best.c.address, caps: best.caps };
  if (candidates.length === 0) return { ok: false, until: nextHour(now), reason: "Held: its egress pool has no address" };
  const others = candidates.length > 1 ? ` (and the other ${candidates.length - 1} of its pool theirs)` : "";
  return { ok: false, until, reason: `Held: warm-up cap: ${why}${others}; waits until ${new Date(until).toISOString()}` };
}
