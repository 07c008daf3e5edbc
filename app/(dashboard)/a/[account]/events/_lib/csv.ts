import type { EventRecord } from "@/lib/contract/events";

/**
 * CSV of event records (RFC 4180: comma, CRLF, quotes doubled). A cell that
 * a spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a
 * leading apostrophe (OWASP "CSV injection").
 */

export const CSV_COLUMNS = [
  "LoggedAt",
  "Time (UTC)",
  "Event",
  "Recipient",
  "Subject",
  "MessageID",
  "From",
  "Reason",
  "LogLevel",
  "Ip",
  "City",
  "Region",
  "Country",
  "Url",
  "Tags",
  "EventID",
] as const;

export function csvCell(value: string | number): string {
  let s = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvHeader(): string {
  return `${CSV_COLUMNS.join(",")}\r\n`;
}

export function csvRow(e: EventRecord): string {
  const h = e.Message.Headers;
  const cells: Array<string | number> = [
    e.LoggedAt,
    new Date(e.LoggedAt * 1000).toISOString(),
    e.Event,
    e.Recipient,
    h.Subject,
    h.MessageId,
    h.From.map(([, email]) => email).join(" "),
    e.Reason,
    e.LogLevel,
    e.Ip ?? "",
    e.Geolocation?.City ?? "",
    e.Geolocation?.Region ?? "",
    e.Geolocation?.Country ?? "",
    e.Url ?? "",
    e.Tags.join(" "),
    e.EventID,
  ];
  return `${cells.map(csvCell).join(",")}\r\n`;
}
