import "server-only";
import { getServerContext } from "../runtime";
import { getSubmissionInfo } from "../submission/submission-info";

/** Facts about the running instance the pages show (no secrets). */
export function instanceInfo(): { sandbox: boolean; publicUrl: string } {
  const ctx = getServerContext();
  return { sandbox: ctx.config.delivery.mode === "sandbox", publicUrl: ctx.publicUrl };
}

/** Where SMTP clients connect (Settings → SMTP submission, docs/smtp.md). */
export interface SmtpSubmissionView {
  /** The host name clients use (the public URL's). */
  host: string;
  /** Where the server listens (127.0.0.1 accepts this machine only). */
  listenAddress?: string;
  port?: number;
  tlsPort?: number;
  tls: "configured" | "self-signed" | "none";
}

export function smtpSubmissionView(): SmtpSubmissionView {
  const ctx = getServerContext();
  const info = getSubmissionInfo(ctx);
  return {
    host: new URL(ctx.publicUrl).hostname,
    listenAddress: ctx.config.submission.host,
    port: info?.port,
    tlsPort: info?.tlsPort,
    tls: info?.tls ?? "none",
  };
}

/** The data directory's free space when it is below MAILROOM_DISK_WARN_FREE (the banner of every page), else undefined. */
export interface DiskSpaceView {
  /** low: below the warning threshold; critical: below MAILROOM_DISK_MIN_FREE, new messages are refused. */
  level: "low" | "critical";
  freeBytes: number;
  totalBytes: number;
  /** The threshold crossed: MAILROOM_DISK_MIN_FREE when critical, else MAILROOM_DISK_WARN_FREE. */
  thresholdBytes: number;
}

export function diskSpaceView(): DiskSpaceView | undefined {
  const status = getServerContext().disk.status();
  if (!status || status.level === "ok") return undefined;
  return {
    level: status.level,
    freeBytes: status.freeBytes,
    totalBytes: status.totalBytes,
    thresholdBytes: status.level === "critical" ? status.minFreeBytes : status.warnFreeBytes,
  };
}
