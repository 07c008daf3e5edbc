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
