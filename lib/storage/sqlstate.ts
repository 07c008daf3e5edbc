/**
 * Errors one row's data can cause (SQLSTATE classes 22 data exception,
 * 23 integrity violation, 54 program limit such as a row too large), as
 * opposed to the database being unavailable. A batch that fails with one is
 * retried item by item so that the bad item fails alone.
 */
export function isRowDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^(22|23|54)/.test(code);
}

/** lock_not_available: a lock not granted within lock_timeout (or NOWAIT). */
export const LOCK_NOT_AVAILABLE = "55P03";
