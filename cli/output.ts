/**
 * How commands print: a human table or text by default, exactly one JSON
 * document on stdout with `--json`. Errors go to stderr as one line (main.ts).
 */

export interface OutputOptions {
  json?: boolean;
}

/** A message for the operator: printed as one line on stderr, exit code 1. */
export class CliError extends Error {}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLines(lines: string | string[]): void {
  process.stdout.write(`${(Array.isArray(lines) ? lines : [lines]).join("\n")}\n`);
}

/** Prints `data` as JSON with --json, else what `human` returns. */
export function emit(options: OutputOptions, data: unknown, human: () => string | string[]): void {
  if (options.json) printJson(data);
  else printLines(human());
}

export type Cell = string | number | boolean | null | undefined | Date;

export function formatCell(value: Cell): string {
  if (value === null || value === undefined) return "-";
  if (value instanceof Date) return formatTime(value);
  return String(value);
}

export function formatTime(value: Date | string | null | undefined): string {
  if (!value) return "-";
  const d = typeof value === "string" ? new Date(value) : value;
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A plain-text table with a header row, columns padded to their widest cell. */
export function table(headers: string[], rows: Cell[][], empty = "(none)"): string {
  if (rows.length === 0) return empty;
  const text = rows.map((r) => r.map(formatCell));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(headers), ...text.map(line)].join("\n");
}
