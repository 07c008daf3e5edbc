import { MAX_DELIVER_ENTRIES, type DeliverEntry, type DeliverJob } from "../jobs/deliver";

/**
 * How the deliver entries of one acceptance transaction become jobs
 * (docs/adr/0024): in order, up to MAX_DELIVER_ENTRIES messages and
 * MAX_DELIVER_JOB_BYTES of them per job. A job's entries are delivered at
 * the same time, so the byte bound keeps what one job holds in memory near
 * what one message did; a message larger than the bound is a job of its own.
 */

export const MAX_DELIVER_JOB_BYTES = 1024 * 1024;

export interface SizedEntry {
  entry: DeliverEntry;
  /** The message's size in bytes (stored or estimated). */
  size: number;
}

/**
 * The jobs of an acceptance transaction whose messages may be of several
 * accounts: packed per account (in the order of each account's first entry),
 * each job keyed by its account, the key the deliver fetch takes turns by
 * (lib/storage/job-rows.ts, docs/adr/0325).
 */
export function packDeliverJobsByAccount(entries: readonly (SizedEntry & { accountId: string })[]): { payload: DeliverJob; key: string }[] {
  const byAccount = new Map<string, SizedEntry[]>();
  for (const { accountId, ...sized } of entries) {
    const list = byAccount.get(accountId);
    if (list) list.push(sized);
    else byAccount.set(accountId, [sized]);
  }
  return [...byAccount].flatMap(([key, list]) => packDeliverEntries(list).map((payload) => ({ payload, key })));
}

export function packDeliverEntries(entries: readonly SizedEntry[]): DeliverJob[] {
  const jobs: DeliverJob[] = [];
  let current: DeliverEntry[] = [];
  let bytes = 0;
  for (const { entry, size } of entries) {
    if (current.length > 0 && (current.length >= MAX_DELIVER_ENTRIES || bytes + size > MAX_DELIVER_JOB_BYTES)) {
      jobs.push({ messages: current });
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) jobs.push({ messages: current });
  return jobs;
}
