import type { SMTPServer, SMTPServerSession } from "smtp-server";
import type { SmtpReply } from "../domain/submission/replies";
import { openConnectionOf } from "../inbound/smtp-limits";

/**
 * What the submission server does to a session before AUTH (docs/smtp.md
 * "Limits", docs/adr/0706-submission-sessions-before-auth.md):
 *
 * - AUTH is neither advertised in EHLO nor accepted before TLS (loopback
 *   clients excepted): an AUTH command then gets 530 without a 334 prompt,
 *   so a client never sends its API key in clear.
 * - An address whose failed AUTH attempts are over the limit gets 454 at the
 *   AUTH command itself, before any credentials are read.
 * - A session not authenticated within the AUTH timeout is closed with 421,
 *   however busy it keeps itself.
 *
 * smtp-server has no hook for EHLO's keyword list or for the AUTH command
 * before SASL, so these wrap the session's own `handler_EHLO` and
 * `handler_AUTH` (smtp-server 3.21, pinned in package.json;
 * test/integration/submission-sessions.test.ts fails if the internals move).
 */

export const SESSION_REPLY = {
  startTlsFirst: { code: 530, text: "5.7.0 Must issue a STARTTLS command first" },
  tooManyConnections: { code: 421, text: "4.7.0 Too many connections from your address, try again later" },
  authTimeout: { code: 421, text: "4.7.0 Authentication not completed in time, closing connection" },
} as const satisfies Record<string, SmtpReply>;

type Callback = () => void;

/** The parts of smtp-server's SMTPConnection used here. */
export interface SmtpConnection {
  session: SMTPServerSession & { disabledCommands?: string[] };
  secure: boolean;
  send(code: number, data: string | string[], context?: unknown): void;
  close(): void;
  handler_EHLO(command: Buffer | string, callback: Callback): void;
  handler_AUTH(command: Buffer | string, callback: Callback): void;
}

/** The live connection of a session (undefined once it has closed): lib/inbound/smtp-limits.ts's, typed for the guard. */
export function connectionOf(servers: readonly (SMTPServer | undefined)[], session: SMTPServerSession): SmtpConnection | undefined {
  return openConnectionOf(servers, session) as SmtpConnection | undefined;
}

export interface GuardOptions {
  /** AUTH is allowed on this connection before TLS (a loopback client). */
  clearAuthAllowed: boolean;
  /** The server's disabled commands (STARTTLS when there is no certificate). */
  serverDisabled: readonly string[];
  /** The reply to AUTH before TLS: 530 "STARTTLS first", or 538 when the server has no TLS to offer. */
  tlsRequiredReply: SmtpReply;
  /** A reply refusing AUTH before credentials are read (too many failures from this address), else undefined. */
  refuseAuth(): SmtpReply | undefined;
  /** Closes an unauthenticated session this long after the guard is put on; 0: never. */
  authTimeoutMs: number;
  onAuthTimeout(): void;
}

/** Puts the guard on a session's connection; returns what cancels its AUTH deadline (call it at AUTH success and at close). */
export function guardSession(conn: SmtpConnection, options: GuardOptions): () => void {
  const needsTls = () => !conn.secure && !options.clearAuthAllowed;

  const ehlo = conn.handler_EHLO;
  conn.handler_EHLO = (command, callback) => {
    if (!needsTls()) return ehlo.call(conn, command, callback);
    // A session's own disabledCommands replaces the server's for the keyword list only.
    const own = conn.session.disabledCommands;
    conn.session.disabledCommands = [...(own ?? options.serverDisabled), "AUTH"];
    try {
      ehlo.call(conn, command, callback);
    } finally {
      if (own === undefined) delete conn.session.disabledCommands;
      else conn.session.disabledCommands = own;
    }
  };

  const auth = conn.handler_AUTH;
  conn.handler_AUTH = (command, callback) => {
    // No 334 prompt: an initial response on the command line is dropped unread.
    const refusal = needsTls() ? options.tlsRequiredReply : options.refuseAuth();
    if (!refusal) return auth.call(conn, command, callback);
    conn.send(refusal.code, refusal.text);
    callback();
  };

  if (!(options.authTimeoutMs > 0)) return () => {};
  const timer = setTimeout(() => {
    if (conn.session.user) return;
    options.onAuthTimeout();
    conn.send(SESSION_REPLY.authTimeout.code, SESSION_REPLY.authTimeout.text);
    conn.close();
  }, options.authTimeoutMs);
  timer.unref();
  return () => clearTimeout(timer);
}
