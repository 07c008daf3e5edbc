/** Formatting shared by server and client renders (UTC, so both print the same text). */

export function formatUtc(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19);
}

export function formatNumber(n: number): string {
  return n.toLocaleString("en-US");
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
