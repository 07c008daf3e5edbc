import { statfs } from "node:fs/promises";
import type { Logger } from "../logger";
import { DiskSpaceLowError } from "./unavailable";

/**
 * Free space of the data directory (the embedded PostgreSQL's disk),
 * sampled with statfs on an interval, never per request (docs/adr/0007).
 * Below the warning threshold: a warn line and the dashboard's banner.
 * Below the minimum: acceptance (POST /email, SMTP submission) is refused
 * with 503/452 while what is queued still drains, so that PostgreSQL never
 * reaches a full disk itself (it stops on a WAL write that fails).
 */

/** A threshold as bytes, or as a percentage of the file system's size. */
export type SpaceThreshold = { bytes: number } | { percent: number };

export interface DiskThresholds {
  warnFree: SpaceThreshold;
  minFree: SpaceThreshold;
}

export type DiskLevel = "ok" | "low" | "critical";

export interface DiskSample {
  freeBytes: number;
  totalBytes: number;
  at: number;
}

export interface DiskStatus extends DiskSample {
  level: DiskLevel;
  warnFreeBytes: number;
  minFreeBytes: number;
}

export function thresholdBytes(t: SpaceThreshold, totalBytes: number): number {
  return "bytes" in t ? t.bytes : Math.floor((totalBytes * t.percent) / 100);
}

/** Pure: the level of a sample against the thresholds. */
export function diskStatusOf(sample: DiskSample, thresholds: DiskThresholds): DiskStatus {
  const warnFreeBytes = thresholdBytes(thresholds.warnFree, sample.totalBytes);
  const minFreeBytes = thresholdBytes(thresholds.minFree, sample.totalBytes);
  const level: DiskLevel = sample.freeBytes < minFreeBytes ? "critical" : sample.freeBytes < warnFreeBytes ? "low" : "ok";
  return { ...sample, level, warnFreeBytes, minFreeBytes };
}

/** MiB for the log lines (the fields carry the bytes). */
const mb = (n: number) => `${Math.round(n / 1048576)} MB`;

export interface DiskMonitor {
  /** The directory watched; undefined when nothing is (DATABASE_URL without MAILROOM_DATA_DIR). */
  readonly dir: string | undefined;
  /** The latest sample's status; undefined before the first, or when nothing is watched or statfs fails. */
  status(): DiskStatus | undefined;
  /** Throws DiskSpaceLowError when the latest sample is below the minimum: called before each acceptance. */
  assertAccepting(): void;
  /** Samples now (start() samples on the interval, from one interval on). */
  sample(): Promise<DiskStatus | undefined>;
  start(): void;
  stop(): void;
}

export interface DiskMonitorOptions {
  dir: string | undefined;
  thresholds: DiskThresholds;
  intervalMs: number;
  log: Logger;
  /** statfs of node:fs; tests give their own. */
  statfs?: (dir: string) => Promise<{ bavail: number | bigint; blocks: number | bigint; bsize: number | bigint }>;
}

export function createDiskMonitor(options: DiskMonitorOptions): DiskMonitor {
  const read = options.statfs ?? ((dir: string) => statfs(dir));
  let latest: DiskStatus | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failing = false;

  const sample = async (): Promise<DiskStatus | undefined> => {
    if (!options.dir) return undefined;
    let next: DiskStatus;
    try {
      const s = await read(options.dir);
      // bavail: what an unprivileged process (PostgreSQL) may still use, not the root reserve.
      const bsize = Number(s.bsize);
      next = diskStatusOf({ freeBytes: Number(s.bavail) * bsize, totalBytes: Number(s.blocks) * bsize, at: Date.now() }, options.thresholds);
      failing = false;
    } catch (err) {
      if (!failing) options.log.warn({ err, dir: options.dir }, "free space of the data directory could not be read");
      failing = true;
      latest = undefined;
      return undefined;
    }
    const before = latest?.level ?? "ok";
    latest = next;
    if (next.level !== before) {
      const detail = { dir: options.dir, freeBytes: next.freeBytes, warnFreeBytes: next.warnFreeBytes, minFreeBytes: next.minFreeBytes };
      const free = `${mb(next.freeBytes)} free of ${mb(next.totalBytes)}`;
      if (next.level === "critical") {
        options.log.error(detail, `data directory almost full (${free}, below MAILROOM_DISK_MIN_FREE ${mb(next.minFreeBytes)}): new messages are refused with 503 until space is freed; the queue still drains`);
      } else if (next.level === "low") {
        options.log.warn(detail, `data directory low on space (${free}, below MAILROOM_DISK_WARN_FREE ${mb(next.warnFreeBytes)})${before === "critical" ? ": accepting messages again" : ""}`);
      } else {
        options.log.info(detail, `data directory has space again (${free})${before === "critical" ? ": accepting messages again" : ""}`);
      }
    }
    return next;
  };

  return {
    dir: options.dir,
    status: () => latest,
    assertAccepting() {
      if (latest?.level === "critical") throw new DiskSpaceLowError(latest.freeBytes, latest.minFreeBytes);
    },
    sample,
    start() {
      if (!options.dir || timer) return;
      timer = setInterval(() => void sample(), options.intervalMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
