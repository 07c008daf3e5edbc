/** Formatting shared by server and client renders (UTC, so both print the same text). */

export function formatUtc(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19);
}

export function formatNumber(n: number): string {
  return n.toLocaleString("en-US");
}

const COMPACT = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 2 });

/** A count where space is short (KPI cards, chart axes): in full below `from`, above it 38.99M, 1.5K. */
export function formatCompact(n: number, from = 1_000_000): string {
  return Math.abs(n) < from ? formatNumber(n) : COMPACT.format(n);
}

export function formatPercent(rate: number | undefined, digits = 1): string {
  return rate === undefined ? "—" : `${(rate * 100).toFixed(digits)}%`;
}

export function formatAddress([name, email]: readonly [string, string]): string {
  return name ? `${name} <${email}>` : email;
}

/** "1.5 GB": binary units, as df -h shows them. */
export function formatBytes(n: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** A delay of whole minutes or hours as people write it: `5 min`, `4 h`, `90 min`, `45 s`. */
export function formatDelay(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}

/** A retry schedule (the delay before each retry) as one sentence: `retried (5 min up to 4 h; 8 attempts in all)`. */
export function describeRetrySchedule(delaysMs: readonly number[]): string {
  if (delaysMs.length === 0) return "not retried (one attempt in all)";
  const first = formatDelay(delaysMs[0]!);
  const last = formatDelay(delaysMs.at(-1)!);
  const span = delaysMs.length === 1 || first === last ? `after ${first}` : `${first} up to ${last}`;
  return `retried (${span}; ${delaysMs.length + 1} attempts in all)`;
}
