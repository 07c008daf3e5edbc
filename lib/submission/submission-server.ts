import type { Socket } from "node:net";
import ipaddr from "ipaddr.js";
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerOptions, type SMTPServerSession } from "smtp-server";
import { MAX_MESSAGE_BYTES } from "../contract/email";
import type { AppContext } from "../context";
import { authenticateApiKey, type AuthenticatedKey } from "../domain/api-keys";
import { keyMaySendFrom, scopeMaySubmit } from "../domain/key-scope";
import { emailDomain, isValidEmail } from "../domain/email-request/addresses";
import { BacklogFullError } from "../domain/delivery-backlog";
import { isVerifiedDomain } from "../domain/send-email";
import { MAX_ENVELOPE_RECIPIENTS } from "../domain/submission/recipient-kinds";
import { REPLY, type SmtpReply } from "../domain/submission/replies";
import { submitMime } from "../domain/submission/submit-mime";
import { findSuppressedEmails, normalizeEmail } from "../domain/suppressions";
import { ConcurrentConnections, readBoundedMessage } from "../inbound/smtp-limits";
import { AuthFailures } from "./auth-failures";
import { DEFAULT_PORTS, listenSubmission } from "./ports";
import { connectionOf, guardSession, SESSION_REPLY } from "./session-guard";
import { setSubmissionInfo, type SubmissionInfo } from "./submission-info";
import { loadTlsMaterial } from "./tls-certificate";

/**
 * The SMTP submission server (docs/smtp.md): a second door to POST /email's
 * acceptance for software that speaks SMTP. STARTTLS on the submission port,
 * implicit TLS on the other; AUTH PLAIN or LOGIN with an API key as the
 * password (any user name), neither offered nor accepted before TLS except
 * from loopback (session-guard.ts). Per client address: a cap on open
 * sessions, a deadline for AUTH and a limit on failed AUTH. Then
 * the MAIL FROM domain, each RCPT (count, suppression) and the message
 * (submit-mime.ts) are checked, each refusal a reply a client understands.
 */

export interface SubmissionServer extends SubmissionInfo {
  stop(): Promise<void>;
}

function isLoopback(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range() === "loopback";
}

const refuse = (reply: SmtpReply) => Object.assign(new Error(reply.text), { responseCode: reply.code });

interface SessionState {
  /** The API key given to AUTH: re-checked at DATA, so a key revoked or an account suspended mid-session stops sending. */
  password: string;
}

interface SessionSlot {
  /** The key of this session's address in the per-address count. */
  key: string;
  /** Cancels the AUTH deadline. */
  cancelDeadline(): void;
}

export async function startSubmissionServer(ctx: AppContext): Promise<SubmissionServer> {
  const cfg = ctx.config.submission;
  const deps = { database: ctx.database, boss: ctx.boss, log: ctx.log, accept: ctx.accept, verifiedDomains: ctx.verifiedDomains };
  const failures = new AuthFailures(cfg.authFailuresPerMinute);
  const openPerAddress = new ConcurrentConnections(cfg.connectionsPerAddress);
  const sessions = new WeakMap<SMTPServerSession, SessionState>();
  const slots = new WeakMap<SMTPServerSession, SessionSlot>();
  // Both listeners, once made (onConnect looks up a session's connection in them).
  const servers: (SMTPServer | undefined)[] = [];
  const tls = await loadTlsMaterial({ certFile: cfg.certFile, keyFile: cfg.keyFile, dataDir: ctx.config.dataDir, hostname: ctx.config.delivery.heloName });
  if (!tls) ctx.log.warn("SMTP submission: no certificate (set MAILROOM_SUBMISSION_TLS_CERT/_KEY, or install openssl); running without TLS, AUTH from loopback only");

  const keyOf = (session: SMTPServerSession) => session.user as AuthenticatedKey;
  /**
   * A check that threw: a database outage (unreachable, disk full) is
   * counted by the outage log (one error line per outage, docs/adr/0008)
   * and answered 451 or 452; anything else is a defect, logged at error.
   */
  const failed = (err: Error, what: string, detail: Record<string, unknown> = {}): SmtpReply => {
    if (err instanceof BacklogFullError) return REPLY.backlogFull;
    const fault = ctx.outage.report("smtp", err, detail);
    if (!fault) ctx.log.error({ err, ...detail }, what);
    return fault === "disk-full" ? REPLY.diskFull : REPLY.temporary;
  };

  const options: SMTPServerOptions = {
    name: ctx.config.delivery.heloName,
    banner: "Mailroom submission",
    logger: false,
    authMethods: ["PLAIN", "LOGIN"],
    // Checked per connection in onAuth: plain-text AUTH is allowed from loopback only.
    allowInsecureAuth: true,
    // Replies carry their own enhanced codes (replies.ts).
    hideENHANCEDSTATUSCODES: true,
    authRequiredMessage: REPLY.authRequired.text,
    maxAllowedUnauthenticatedCommands: 10,
    maxClients: cfg.maxClients,
    socketTimeout: cfg.idleTimeoutMs,
    // Stopping waits this long for sessions in progress, then closes them.
    closeTimeout: 3000,
    size: MAX_MESSAGE_BYTES,
    disableReverseLookup: true,
    ...(tls ? { key: tls.key, cert: tls.cert } : {}),
    disabledCommands: tls ? [] : ["STARTTLS"],

    onConnect(session, callback) {
      const remote = session.remoteAddress;
      // Gone already (closed while its greeting was pending): onClose has run, nothing to count.
      const conn = connectionOf(servers, session);
      if (!conn) return callback(refuse(SESSION_REPLY.tooManyConnections));
      const key = openPerAddress.admit(remote);
      if (key === undefined) {
        ctx.log.warn({ remote, limit: cfg.connectionsPerAddress }, "SMTP submission connection refused: too many from this address");
        return callback(refuse(SESSION_REPLY.tooManyConnections));
      }
      const cancelDeadline = guardSession(conn, {
        clearAuthAllowed: isLoopback(remote),
        serverDisabled: tls ? [] : ["STARTTLS"],
        tlsRequiredReply: tls ? SESSION_REPLY.startTlsFirst : REPLY.encryptionRequired,
        refuseAuth: () => (failures.blocked(remote) ? REPLY.authThrottled : undefined),
        authTimeoutMs: cfg.authTimeoutMs,
        onAuthTimeout: () => ctx.log.info({ remote }, "SMTP submission connection closed: no AUTH in time"),
      });
      slots.set(session, { key, cancelDeadline });
      callback();
    },

    onClose(session) {
      const slot = slots.get(session);
      if (!slot) return;
      slots.delete(session);
      slot.cancelDeadline();
      openPerAddress.release(slot.key);
    },

    onAuth(auth: SMTPServerAuthentication, session, callback) {
      const remote = session.remoteAddress;
      // Refused at the AUTH command already (session-guard.ts); kept for a session that got here another way.
      if (!session.secure && !isLoopback(remote)) return callback(refuse(REPLY.encryptionRequired));
      if (failures.blocked(remote)) return callback(refuse(REPLY.authThrottled));
      const password = auth.password ?? "";
      authenticateApiKey(ctx.database, `Bearer ${password}`, ctx.apiKeyAuth).then(
        (result) => {
          if (!result.ok) {
            failures.fail(remote);
            return callback(refuse(result.code === 12 ? REPLY.accountSuspended : REPLY.badCredentials));
          }
          // A valid key that may not send (docs/contract.md §17.2): not a failed guess, so not counted.
          if (!scopeMaySubmit(result.key.scope)) return callback(refuse(REPLY.scopeCannotSubmit(result.key.scope)));
          sessions.set(session, { password });
          slots.get(session)?.cancelDeadline();
          callback(null, { user: result.key });
        },
        (err: Error) => callback(refuse(failed(err, "SMTP submission: AUTH failed"))),
      );
    },

    onMailFrom(address, session, callback) {
      if (!isValidEmail(address.address)) return callback(refuse(REPLY.badSender));
      // Below MAILROOM_DISK_MIN_FREE nothing new is accepted: say so before the client sends the message.
      if (ctx.disk.status()?.level === "critical") return callback(refuse(REPLY.diskFull));
      // Too many messages wait for delivery (docs/contract.md §18): the client retries later, as after a 4xx it must.
      if (ctx.backlog.full()) return callback(refuse(REPLY.backlogFull));
      const domain = emailDomain(address.address);
      if (!keyMaySendFrom(keyOf(session).senderDomains, domain)) return callback(refuse(REPLY.senderNotAllowedForKey(domain)));
      isVerifiedDomain(ctx, keyOf(session).accountId, domain).then(
        (ok) => callback(ok ? undefined : refuse(REPLY.senderNotVerified(domain))),
        (err: Error) => callback(refuse(failed(err, "SMTP submission: MAIL FROM check failed"))),
      );
    },

    onRcptTo(address, session, callback) {
      if (!isValidEmail(address.address)) return callback(refuse(REPLY.badRecipient));
      if (session.envelope.rcptTo.length >= MAX_ENVELOPE_RECIPIENTS) {
        return callback(refuse(REPLY.tooManyRecipients(`at most ${MAX_ENVELOPE_RECIPIENTS} per message (10 To, 10 Cc, 5 Bcc)`)));
      }
      findSuppressedEmails(ctx.database, keyOf(session).accountId, [address.address]).then(
        (found) => {
          const row = found.get(normalizeEmail(address.address));
          callback(row ? refuse(REPLY.suppressed(row.reason)) : undefined);
        },
        (err: Error) => callback(refuse(failed(err, "SMTP submission: RCPT check failed"))),
      );
    },

    onData(stream, session, callback) {
      const envelope = {
        mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
        rcptTo: session.envelope.rcptTo.map((r) => r.address),
      };
      const answer = async (): Promise<SmtpReply> => {
        // At most MAX_MESSAGE_BYTES is kept; the rest is drained and the message refused (552).
        const { raw, exceeded } = await readBoundedMessage(stream, MAX_MESSAGE_BYTES);
        if (exceeded) return REPLY.tooBig(MAX_MESSAGE_BYTES);
        const state = sessions.get(session);
        const auth = await authenticateApiKey(ctx.database, `Bearer ${state?.password ?? ""}`, ctx.apiKeyAuth);
        if (!auth.ok) return auth.code === 12 ? REPLY.accountSuspended : REPLY.badCredentials;
        const result = await submitMime(deps, auth.key, { raw, ...envelope });
        if (result.ok) ctx.log.info({ messageId: result.messageId, accountId: auth.key.accountId, recipients: envelope.rcptTo.length }, "SMTP submission accepted");
        return result.reply;
      };
      answer().then(
        (reply) => (reply.code === 250 ? callback(null, reply.text) : callback(refuse(reply))),
        (err: Error) => callback(refuse(failed(err, "SMTP submission: the message could not be accepted", envelope))),
      );
    },
  };

  const starttls = new SMTPServer({ ...options, secure: false });
  const implicit = tls ? new SMTPServer({ ...options, secure: true }) : undefined;
  servers.push(starttls, implicit);
  if (implicit) {
    // Port 465: the TLS handshake comes before onConnect, and smtp-server holds up to maxClients sockets in it.
    // The per-address cap applies from accept on here, so one host cannot fill that queue either. A socket
    // over the cap is closed before smtp-server sees it (it must never get a destroyed socket: Node 20
    // crashes wrapping one in TLS), and at once: nothing can be written before the handshake.
    const accepted = new ConcurrentConnections(cfg.connectionsPerAddress);
    const net = implicit.server;
    const smtpServerListeners = net.listeners("connection") as ((socket: Socket) => void)[];
    net.removeAllListeners("connection");
    net.on("connection", (socket: Socket) => {
      const key = accepted.admit(socket.remoteAddress ?? "");
      if (key === undefined) {
        socket.on("error", () => {});
        socket.destroy();
        return;
      }
      socket.once("close", () => accepted.release(key));
      for (const listener of smtpServerListeners) listener.call(net, socket);
    });
  }
  for (const s of [starttls, implicit]) {
    s?.on("error", (err) => ctx.log.warn({ err }, "SMTP submission error"));
    // Replies are small writes answered by the client's next command: without this, Nagle's
    // algorithm and the peer's delayed ACK add ~40 ms to a message (bench:smtp).
    s?.server.on("connection", (socket: Socket) => socket.setNoDelay(true));
  }
  const warn = (message: string) => ctx.log.warn(message);
  const stopAll = async () => {
    for (const s of [starttls, implicit]) if (s?.server.listening) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  try {
    const port = await listenSubmission(starttls.server, cfg.host, cfg.port, DEFAULT_PORTS.starttls, warn);
    const tlsPort = implicit ? await listenSubmission(implicit.server, cfg.host, cfg.tlsPort, DEFAULT_PORTS.tls, warn) : undefined;
    const host = cfg.host === "0.0.0.0" || cfg.host === "::" ? "127.0.0.1" : cfg.host;
    const info: SubmissionInfo = { host, port, tlsPort, tls: tls?.source ?? "none" };
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
