import { databaseFaultOf } from "../../storage/unavailable";

/**
 * What a person is told when the database could not do what they asked
 * because of an outage (the dashboard's pages and actions; the CLI says the
 * same in one line): the disk is full, or the database is unavailable.
 * Undefined for anything else (a defect stays a defect).
 */
export const OUTAGE_MESSAGES = {
  "disk-full":
    "The server's disk is full: nothing new can be stored until space is freed in the data directory (docs/OPERATIONS.md, \"Disk space\"). Messages already accepted are still delivered. Try again once space is freed.",
  unavailable: "The database is unavailable for a moment (restarting or unreachable). Try again in a few seconds.",
} as const;

export function outageMessage(err: unknown): string | undefined {
  const fault = databaseFaultOf(err);
  return fault && OUTAGE_MESSAGES[fault];
}
