import type { Resolver } from "./ssrf-guard";

/** The notification dispatcher's knobs and counters (lib/webhooks/dispatcher.ts). */

export interface DispatcherOptions {
  /** Notifications held at once (running, waiting for their destination, or being written back). */
  maxInFlight: number;
  /** Concurrent POSTs per destination (URL origin). */
  perDestination: number;
  /** Waiting line per destination; past it, work is handed back for later. */
  maxWaitingPerDestination: number;
  /** Work that waited this long for its destination is handed back instead of run. */
  maxWaitMs: number;
  /** Idle poll for due retries when nothing wakes the loop. */
  pollIntervalMs: number;
  /** How long a claimed row stays reserved for its worker. */
  leaseMs: number;
  /** Work handed back (its destination's line is full or too slow) is due again after this. */
  deferMs: number;
  resolver?: Resolver;
}

export function defaultDispatcherOptions(timeoutMs: number): DispatcherOptions {
  return {
    maxInFlight: 1000,
    perDestination: 32,
    maxWaitingPerDestination: 600,
    maxWaitMs: 30_000,
    pollIntervalMs: 500,
    leaseMs: Math.max(120_000, timeoutMs * 6),
    deferMs: 2_000,
  };
}

/** Where the dispatcher's time goes (cumulative since start); for benchmarks and diagnostics. */
export interface DispatcherStats {
  claims: number;
  claimedJobs: number;
  claimMs: number;
  posts: number;
  postMs: number;
  flushes: number;
  flushedRecords: number;
  flushMs: number;
  handedBack: number;
}
