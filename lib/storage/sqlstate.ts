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

/** deadlock_detected: PostgreSQL aborted this transaction to break a lock cycle; running it again may succeed. */
export const DEADLOCK_DETECTED = "40P01";

/** The SQLSTATE of a driver error, through the wrapping of drizzle and pg-boss (their `cause`). */
export function sqlStateOf(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    // Five characters, and no errno name such as EPIPE (no SQLSTATE class begins with E).
    if (typeof code === "string" && /^[0-9A-DF-Z][0-9A-Z]{4}$/.test(code)) return code;
  }
  return undefined;
}
