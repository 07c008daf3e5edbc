/**
 * The geometry of the dashboard's line charts (time-series-chart.tsx), pure
 * so that it is rendered on the server: the lines are in the first HTML, not
 * drawn after a charting library has hydrated and measured its container.
 * Coordinates are in a PLOT×PLOT box that the SVG stretches to its size.
 */

export const PLOT = 1000;

/** The axis maximum and its ticks: 0 to the first "nice" step multiple (1, 2, 2.5, 5 × 10^k) at or above `max`. */
export function niceTicks(max: number, count = 4, allowDecimals = false): number[] {
  const top = Number.isFinite(max) && max > 0 ? max : 0;
  if (top === 0) return Array.from({ length: count + 1 }, (_, i) => i);
  let step = niceStep(top / count);
  if (!allowDecimals) step = Math.max(1, Math.ceil(step));
  const ticks: number[] = [];
  for (let i = 0; ticks.length === 0 || ticks[ticks.length - 1]! < top; i++) ticks.push(round(i * step));
  return ticks;
}

function niceStep(raw: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const f = raw / magnitude;
  const nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
  return nice * magnitude;
}

/** Rounds away binary noise (0.1 × 3 = 0.30000000000000004). */
function round(n: number): number {
  return Math.round(n * 1e9) / 1e9;
}

/** The x of bucket `i` of `n`: the first at the left edge, the last at the right (one alone in the middle). */
export function xOf(i: number, n: number): number {
  return n <= 1 ? PLOT / 2 : round((i / (n - 1)) * PLOT);
}

/** The hover band of bucket `i` of `n`: halfway to each neighbour, cut at the plot's edges (the first and last are half wide). */
export function hoverBand(i: number, n: number): { x: number; width: number } {
  const half = n > 1 ? PLOT / (n - 1) / 2 : PLOT / 2;
  const x = Math.max(0, xOf(i, n) - half);
  return { x: round(x), width: round(Math.min(PLOT, xOf(i, n) + half) - x) };
}

/** The y of `value` on an axis from 0 (bottom) to `top`. */
export function yOf(value: number, top: number): number {
  return round(PLOT - (Math.min(Math.max(value, 0), top) / (top || 1)) * PLOT);
}

/** One series as an SVG path: the points that have a value, joined across the buckets that have none. */
export function linePath(values: (number | null | undefined)[], top: number): string {
  const parts: string[] = [];
  values.forEach((v, i) => {
    if (v === null || v === undefined || !Number.isFinite(v)) return;
    parts.push(`${parts.length === 0 ? "M" : "L"}${xOf(i, values.length)} ${yOf(v, top)}`);
  });
  return parts.join(" ");
}

/** Markers as zero-length segments: with round caps and a stroke that does not scale they are dots of one size however the box is stretched. */
export function dotsPath(values: (number | null | undefined)[], top: number): string {
  const parts: string[] = [];
  values.forEach((v, i) => {
    if (v === null || v === undefined || !Number.isFinite(v)) return;
    parts.push(`M${xOf(i, values.length)} ${yOf(v, top)}h0`);
  });
  return parts.join(" ");
}

/** Which buckets get an axis label: at most `most`, evenly spaced, the first always. */
export function labelledBuckets(n: number, most = 7): number[] {
  if (n <= 0) return [];
  const every = Math.max(1, Math.ceil(n / most));
  const picked: number[] = [];
  for (let i = 0; i < n; i += every) picked.push(i);
  return picked;
}

/** Formats a bucket start (Unix seconds) for the hover and the table: MM-DD HH:00 for hours, YYYY-MM-DD for days (UTC). */
export function bucketLabel(start: number, interval: "hour" | "day"): string {
  const iso = new Date(start * 1000).toISOString();
  return interval === "hour" ? `${iso.slice(5, 10)} ${iso.slice(11, 13)}:00` : iso.slice(0, 10);
}

/** The axis's shorter label: hours as HH:00 (MM-DD at midnight, where the day changes), days as MM-DD (UTC). */
export function axisLabel(start: number, interval: "hour" | "day"): string {
  const iso = new Date(start * 1000).toISOString();
  return interval === "hour" && iso.slice(11, 13) !== "00" ? `${iso.slice(11, 13)}:00` : iso.slice(5, 10);
}
