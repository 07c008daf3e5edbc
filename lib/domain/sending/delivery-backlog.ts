import type { Logger } from "../../logger";

/**
 * Acceptance never starves delivery (docs/contract.md §18, docs/adr/0322):
 * once more than MAILROOM_MAX_BACKLOG messages wait for a delivery worker,
 * new mail is refused (POST /email and batches 429 with Retry-After, SMTP
 * submission 451) until the workers have caught up, so that a message
 * accepted now is not queued behind seconds of others.
 *
 * The depth is read on an interval by one bounded statement per process
 * (lib/storage/delivery-backlog-rows.ts), never per request: a request only
 * compares the latest sample with the maximum. A scheduled send is refused
 * as any other, and so is a new SendAt (PATCH): either would otherwise be a
 * way around the pushback (docs/adr/0129).
 */

/** What a refused client is told to wait: a backlog at its maximum drains in about this long at the rates measured (docs/BENCHMARKS.md). */
export const BACKLOG_RETRY_AFTER_SECONDS = 1;

export class BacklogFullError extends Error {
  readonly retryAfter = BACKLOG_RETRY_AFTER_SECONDS;
  constructor(
    readonly depth: number,
    readonly max: number,
  ) {
    super(`${depth} messages wait for delivery, the most accepted is ${max} (MAILROOM_MAX_BACKLOG): acceptance is paused`);
    this.name = "BacklogFullError";
  }
}

export interface BacklogMonitor {
  /** The latest sample: messages waiting for a worker, counted up to the maximum; undefined before the first or when disabled. */
  depth(): number | undefined;
  /** Whether the latest sample is at or past the maximum. */
  full(): boolean;
  /** Throws BacklogFullError when full(): called before each acceptance, scheduled or not, and each new SendAt. */
  assertAccepting(): void;
  /** Samples now (start() samples on the interval). */
  sample(): Promise<number | undefined>;
  start(): void;
  stop(): void;
}

export interface BacklogMonitorOptions {
  /** MAILROOM_MAX_BACKLOG (or the inbound one); 0 turns the check off. */
  max: number;
  /** What the log lines name: the backlog and its variable (default the delivery backlog's). */
  label?: { backlog: string; variable: string };
  intervalMs: number;
  /** Messages waiting for delivery, read up to `bound` (more than that may be reported as the bound). */
  read: (bound: number) => Promise<number>;
  log: Logger;
}

export function createBacklogMonitor(options: BacklogMonitorOptions): BacklogMonitor {
  const { max, intervalMs, read, log } = options;
  const { backlog, variable } = options.label ?? { backlog: "delivery backlog", variable: "MAILROOM_MAX_BACKLOG" };
  let latest: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let sampling: Promise<number | undefined> | undefined;
  let refusing = false;

  const note = (depth: number | undefined) => {
    latest = depth;
    const full = depth !== undefined && depth >= max;
    // One line when refusing starts and one when it ends, never one per request.
    if (full && !refusing) log.warn({ depth, max }, `${backlog} at its maximum (${variable}): new mail is refused until it drains`);
    if (!full && refusing) log.info({ depth, max }, `${backlog} below its maximum again: accepting`);
    refusing = full;
    return depth;
  };

  const sample = (): Promise<number | undefined> => {
    if (max === 0) return Promise.resolve(undefined);
    // One statement at a time: a slow database does not pile samples up.
    sampling ??= read(max)
      // An unreachable database is not a full backlog: the acceptance meets the outage itself.
      .then(note, () => note(undefined))
      .finally(() => (sampling = undefined));
    return sampling;
  };

  const full = () => max > 0 && latest !== undefined && latest >= max;
  return {
    depth: () => latest,
    full,
    assertAccepting() {
      if (full()) throw new BacklogFullError(latest!, max);
    },
    sample,
    start() {
      if (max === 0 || timer) return;
      timer = setInterval(() => void sample(), intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
