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
