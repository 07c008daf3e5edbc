/**
 * Whether an error means "the database cannot be reached right now" (server
 * restarting, connection refused or lost, pool exhausted past its timeout)
 * or "the database's disk is full", as opposed to a bug. The API answers
 * both with 503, `Retry-After` and the JSON envelope; SMTP submission with a
 * 4xx reply (docs/adr/0007).
 */
const UNAVAILABLE_SQLSTATES = new Set([
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, recovering)
  "53000", // insufficient_resources
  "53200", // out_of_memory
  "53300", // too_many_connections
  "53400", // configuration_limit_exceeded
  "08000", "08001", "08003", "08004", "08006", // connection exceptions
]);
const UNAVAILABLE_ERRNOS = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /terminating connection due to administrator command/i,
  /terminating connection because of crash of another server process/i,
  /server closed the connection unexpectedly/i,
  // A statement past the pool's query timeout (MAILROOM_DB_QUERY_TIMEOUT): a server that accepts but does not answer.
  /^Query read timeout$/,
  // A request still in flight while the process stops: the pool is closed under it. The client retries elsewhere.
  /Cannot use a pool after calling end on the pool/i,
];
/** 53100 disk_full; ENOSPC from a file write of this process (EDQUOT: a quota, the same for the client). */
const DISK_FULL_CODES = new Set(["53100", "ENOSPC", "EDQUOT"]);
const DISK_FULL_MESSAGES = [/No space left on device/i, /Disk quota exceeded/i];

/** What kind of outage an error is: the disk is full, the database is unreachable, or none (a defect or a bad input). */
export type DatabaseFault = "disk-full" | "unavailable";

/**
 * The error a full disk raises before PostgreSQL's own: thrown where
 * acceptance is refused because the data directory's free space is below
 * MAILROOM_DISK_MIN_FREE (lib/storage/disk-space.ts).
 */
export class DiskSpaceLowError extends Error {
  readonly code = "ENOSPC";
  constructor(readonly freeBytes: number, readonly minFreeBytes: number) {
    super(`the data directory has ${freeBytes} bytes free, below the ${minFreeBytes} kept in reserve (MAILROOM_DISK_MIN_FREE): acceptance is paused`);
    this.name = "DiskSpaceLowError";
  }
}

/** Walks the error and its causes (drizzle and pg-boss wrap the driver's error); the first match wins, disk full first. */
export function databaseFaultOf(err: unknown): DatabaseFault | undefined {
  let unavailable = false;
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e !== "object") break;
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === "string" && DISK_FULL_CODES.has(code)) return "disk-full";
    if (typeof message === "string" && DISK_FULL_MESSAGES.some((re) => re.test(message))) return "disk-full";
    if (typeof code === "string" && (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_ERRNOS.has(code))) unavailable = true;
    if (typeof message === "string" && UNAVAILABLE_MESSAGES.some((re) => re.test(message))) unavailable = true;
  }
  return unavailable ? "unavailable" : undefined;
}

/** Any outage: unreachable, or a full disk. */
export function isDatabaseUnavailable(err: unknown): boolean {
  return databaseFaultOf(err) !== undefined;
}

export function isDiskFull(err: unknown): boolean {
  return databaseFaultOf(err) === "disk-full";
}
