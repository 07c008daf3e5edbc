/** A bucket's names (UTC), the same on the server and in the browser. */

/** The full name of a bucket, for the tooltip and the table: "11-27 08:00" or "2026-11-27". */
export function bucketLabel(start: number, interval: "hour" | "day"): string {
  const iso = new Date(start * 1000).toISOString();
  return interval === "hour" ? `${iso.slice(5, 10)} ${iso.slice(11, 13)}:00` : iso.slice(0, 10);
}

/** The axis's shorter label: hours as HH:00 (MM-DD at midnight, where the day changes), days as MM-DD (UTC). */
export function axisLabel(start: number, interval: "hour" | "day"): string {
  const iso = new Date(start * 1000).toISOString();
  return interval === "hour" && iso.slice(11, 13) !== "00" ? `${iso.slice(11, 13)}:00` : iso.slice(5, 10);
}

/** A series' value as the tooltip and the table print it: "1,234", "95.2%", or "—" for no value. */
export function formatValue(v: unknown, unit = ""): string {
  return v === null || v === undefined || (typeof v === "number" && !Number.isFinite(v)) ? "—" : `${Number(v).toLocaleString("en-US")}${unit}`;
}
