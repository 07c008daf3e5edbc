import type { Logger } from "../logger";
import { databaseFaultOf, DiskSpaceLowError, type DatabaseFault } from "./unavailable";

/**
 * One error line per database outage and component, not one per failed
 * request (docs/adr/0008). An outage is handled (503 + Retry-After, 4xx SMTP
 * replies, jobs retried), so an operator alerting on error lines is paged
 * once, when it starts; what follows is counted, logged at debug, and
 * summed up at warn when the database answers again ("database
 * unavailable: 312 requests answered 503 during the outage").
 *
 * OutageTracker is the pure state; createOutageLog adds the logger and the
 * probe that notices the end of the outage (SELECT 1 every second, only
 * while one lasts).
 */

/** Who reports failures, and what a failure of theirs is called in the summary. */
export const OUTAGE_COMPONENTS = {
  api: "requests answered 503",
  smtp: "SMTP submission commands answered 4xx",
  webhooks: "webhook notification steps failed (retried)",
  delivery: "delivery steps failed (retried)",
  jobs: "job queue operations failed (retried)",
  inbound: "inbound messages answered 4xx",
  sandbox: "sandbox MX messages answered 4xx",
} as const;
export type OutageComponent = keyof typeof OUTAGE_COMPONENTS;

export interface OutageSummary {
  kind: DatabaseFault;
  startedAt: number;
  endedAt: number;
  /** Failures per component, the first included. */
  counts: Partial<Record<OutageComponent, number>>;
}

interface Current {
  kind: DatabaseFault;
  startedAt: number;
  lastFailureAt: number;
  counts: Partial<Record<OutageComponent, number>>;
}

export class OutageTracker {
  private current: Current | undefined;

  get active(): boolean {
    return this.current !== undefined;
  }

  /**
   * A failure of `component` at `now` (ms). True when it is that component's
   * first of this outage: the one line to log at error level.
   */
  failure(component: OutageComponent, kind: DatabaseFault, now: number): boolean {
    const c = (this.current ??= { kind, startedAt: now, lastFailureAt: now, counts: {} });
    // A full disk is the more telling cause: it wins over "unreachable" (the postmaster exits on it).
    if (kind === "disk-full") c.kind = kind;
    c.lastFailureAt = Math.max(c.lastFailureAt, now);
    const n = (c.counts[component] ?? 0) + 1;
    c.counts[component] = n;
    return n === 1;
  }

  /**
   * The database answered at `now`: the outage ends if nothing failed for
   * `quietMs` (a disk still full fails writes while reads succeed). Returns
   * its summary once, when it ends.
   */
  answered(now: number, quietMs: number): OutageSummary | undefined {
    const c = this.current;
    if (!c || now - c.lastFailureAt < quietMs) return undefined;
    this.current = undefined;
    return { kind: c.kind, startedAt: c.startedAt, endedAt: now, counts: c.counts };
  }
}

/** The summary's lines: one per component, its count and what it counted. */
export function summaryLines(s: OutageSummary): { component: OutageComponent; count: number; text: string }[] {
  const what = s.kind === "disk-full" ? "database disk full" : "database unavailable";
  const seconds = Math.round((s.endedAt - s.startedAt) / 100) / 10;
  return (Object.entries(s.counts) as [OutageComponent, number][]).map(([component, count]) => ({
    component,
    count,
    text: `${what}: ${count} ${OUTAGE_COMPONENTS[component]} during the outage (${seconds} s)`,
  }));
}

export interface OutageLog {
  /**
   * Classifies `err`: an outage (unreachable database, full disk) is logged
   * at error for the component's first failure of the outage, at debug after
   * that, and its kind returned; anything else returns undefined and is left
   * to the caller (a defect, logged as before).
   */
  report(component: OutageComponent, err: unknown, detail?: Record<string, unknown>): DatabaseFault | undefined;
  readonly active: boolean;
  stop(): void;
}

export interface OutageLogOptions {
  probeEveryMs?: number;
  quietMs?: number;
  now?: () => number;
}

export function createOutageLog(log: Logger, probe: () => Promise<unknown>, options: OutageLogOptions = {}): OutageLog {
  const probeEveryMs = options.probeEveryMs ?? 1000;
  const quietMs = options.quietMs ?? 1000;
  const now = options.now ?? Date.now;
  const tracker = new OutageTracker();
  let timer: NodeJS.Timeout | undefined;
  let probing = false;
  let stopped = false;

  const check = async () => {
    if (probing) return;
    probing = true;
    try {
      await probe();
      const summary = tracker.answered(now(), quietMs);
      if (summary) {
        clearInterval(timer);
        timer = undefined;
        for (const line of summaryLines(summary)) log.warn({ component: line.component, count: line.count, outageMs: summary.endedAt - summary.startedAt }, line.text);
        log.info({ outageMs: summary.endedAt - summary.startedAt }, summary.kind === "disk-full" ? "database writes succeed again" : "database available again");
      }
    } catch {
      // Still down: the next probe tries again.
    } finally {
      probing = false;
    }
  };

  return {
    report(component, err, detail = {}) {
      const kind = databaseFaultOf(err);
      if (!kind) return undefined;
      // Acceptance paused below MAILROOM_DISK_MIN_FREE: the disk monitor logged it once; the database itself is fine.
      if (err instanceof DiskSpaceLowError) return kind;
      const first = tracker.failure(component, kind, now());
      const message = err instanceof Error ? err.message : String(err);
      if (first) {
        log.error(
          { component, kind, err: { message }, ...detail },
          kind === "disk-full"
            ? `database disk full (${component}): answering 503/4xx until space is freed; failures are counted and summed up when it recovers`
            : `database unavailable (${component}): answering 503/4xx until it is back; failures are counted and summed up when it recovers`,
        );
      } else if (log.isLevelEnabled("debug")) {
        log.debug({ component, kind, err: { message }, ...detail }, "database outage: failure counted");
      }
      if (!timer && !stopped) {
        timer = setInterval(() => void check(), probeEveryMs);
        timer.unref();
      }
      return kind;
    },
    get active() {
      return tracker.active;
    },
    stop() {
      stopped = true;
      clearInterval(timer);
      timer = undefined;
    },
  };
}
