import { SMTPServer } from "smtp-server";
import type { AppContext } from "../context";
import { capAcceptedPerAddress, listenerOptions, reachableHost, tuneListener } from "./listeners";
import { DEFAULT_PORTS, listenSubmission } from "./ports";
import { sessionSteps } from "./session-steps";
import { setSubmissionInfo, type SubmissionInfo } from "./submission-info";
import { loadTlsMaterial, type TlsMaterial } from "./tls-certificate";

/**
 * The SMTP submission server (docs/smtp.md): a second door to POST /email's
 * acceptance for software that speaks SMTP. STARTTLS on the submission port,
 * implicit TLS on the other; AUTH PLAIN or LOGIN with an API key as the
 * password (any user name), neither offered nor accepted before TLS except
 * from loopback (session-guard.ts). What a session does at each command is
 * session-steps.ts's; the listeners' options and socket settings are
 * listeners.ts's.
 */

export interface SubmissionServer extends SubmissionInfo {
  stop(): Promise<void>;
}

export async function startSubmissionServer(ctx: AppContext): Promise<SubmissionServer> {
  const tls = await loadTls(ctx);
  // Both listeners, once made (a session's connection is looked up in them).
  const servers: (SMTPServer | undefined)[] = [];
  const options = { ...listenerOptions(ctx.config, tls), ...sessionSteps(ctx, tls, servers) };
  const starttls = new SMTPServer({ ...options, secure: false });
  const implicit = tls ? new SMTPServer({ ...options, secure: true }) : undefined;
  servers.push(starttls, implicit);
  if (implicit) capAcceptedPerAddress(implicit.server, ctx.config.submission.connectionsPerAddress);
  for (const s of [starttls, implicit]) if (s) tuneListener(s, ctx.log);
  return listen(ctx, starttls, implicit, tls);
}

/** The configured certificate, else a self-signed one; none (no openssl): a warning, and AUTH from loopback only. */
async function loadTls(ctx: AppContext): Promise<TlsMaterial | undefined> {
  const cfg = ctx.config.submission;
  const tls = await loadTlsMaterial({ certFile: cfg.certFile, keyFile: cfg.keyFile, dataDir: ctx.config.dataDir, hostname: ctx.config.delivery.heloName });
  if (!tls) ctx.log.warn("SMTP submission: no certificate (set MAILROOM_SUBMISSION_TLS_CERT/_KEY, or install openssl); running without TLS, AUTH from loopback only");
  return tls;
}

/** Both listeners on their ports, or neither: one that fails to listen closes the other. */
async function listen(ctx: AppContext, starttls: SMTPServer, implicit: SMTPServer | undefined, tls: TlsMaterial | undefined): Promise<SubmissionServer> {
  const cfg = ctx.config.submission;
  const warn = (message: string) => ctx.log.warn(message);
  const stopAll = async () => {
    for (const s of [starttls, implicit]) if (s?.server.listening) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  try {
    const port = await listenSubmission(starttls.server, cfg.host, cfg.port, DEFAULT_PORTS.starttls, warn);
    const tlsPort = implicit ? await listenSubmission(implicit.server, cfg.host, cfg.tlsPort, DEFAULT_PORTS.tls, warn) : undefined;
    const info: SubmissionInfo = { host: reachableHost(cfg.host), port, tlsPort, tls: tls?.source ?? "none" };
    setSubmissionInfo(ctx, info);
    return {
      ...info,
      stop: async () => {
        setSubmissionInfo(ctx, undefined);
        await stopAll();
      },
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
