import type { SMTPServer, SMTPServerAddress, SMTPServerAuthentication, SMTPServerDataStream, SMTPServerOptions, SMTPServerSession } from "smtp-server";
import { MAX_MESSAGE_BYTES } from "../contract/email";
import type { AppContext } from "../context";
import { authenticateApiKey, type AuthenticatedKey } from "../domain/accounts/api-keys";
import { BacklogFullError } from "../domain/sending/delivery-backlog";
import { emailDomain } from "../domain/sending/email-request/addresses";
import { isValidEmail } from "../contract/text";
import { keyMaySendFrom, scopeMaySubmit } from "../domain/accounts/key-scope";
import { isVerifiedDomain } from "../domain/sending/send-email";
import { sendingPausedMessage } from "../domain/sending/guardrails/paused";
import { MAX_ENVELOPE_RECIPIENTS } from "../domain/submission/recipient-kinds";
import { REPLY, type SmtpReply } from "../domain/submission/replies";
import { submitMime } from "../domain/submission/submit-mime";
import { findSuppressedEmails, normalizeEmail } from "../domain/accounts/suppressions";
import { ConcurrentConnections, readBoundedMessage } from "../inbound/smtp-limits";
import { AuthFailures } from "./auth-failures";
import { isLoopback } from "./listeners";
import { connectionOf, guardSession, SESSION_REPLY } from "./session-guard";
import type { TlsMaterial } from "./tls-certificate";

/**
 * What a submission session does at each step (docs/smtp.md): at connect,
 * a cap on open sessions per client address and a deadline for AUTH
 * (session-guard.ts); AUTH with an API key as the password, a limit on
 * failed ones per address; the MAIL FROM domain, each RCPT (count,
 * suppression) and the message (submit-mime.ts) checked, each refusal a
 * reply a client understands.
 */

type Callback = (err?: Error | null) => void;
type SessionHandlers = Required<Pick<SMTPServerOptions, "onConnect" | "onClose" | "onAuth" | "onMailFrom" | "onRcptTo" | "onData">>;

interface SessionSlot {
  /** The key of this session's address in the per-address count. */
  key: string;
  /** Cancels the AUTH deadline. */
  cancelDeadline(): void;
}

/** The state the steps share, one per server (both listeners). */
interface Sessions {
  ctx: AppContext;
  tls: TlsMaterial | undefined;
  /** Both listeners, once made (a session's connection is looked up in them). */
  servers: readonly (SMTPServer | undefined)[];
  failures: AuthFailures;
  openPerAddress: ConcurrentConnections;
  /** The API key given to AUTH: re-checked at DATA, so a key revoked or an account suspended mid-session stops sending. */
  passwords: WeakMap<SMTPServerSession, string>;
  slots: WeakMap<SMTPServerSession, SessionSlot>;
  /** What POST /email's acceptance of a message needs (submit-mime.ts). */
  submitDeps: Parameters<typeof submitMime>[0];
}

export const refuse = (reply: SmtpReply) => Object.assign(new Error(reply.text), { responseCode: reply.code });

/** The reply to an API key that does not authenticate: a suspended account (code 12) says so. */
export const authRefusal = (code: number): SmtpReply => (code === 12 ? REPLY.accountSuspended : REPLY.badCredentials);

/**
 * A check that threw: a database outage (unreachable, disk full) is
 * counted by the outage log (one error line per outage, docs/adr/0008)
 * and answered 451 or 452; anything else is a defect, logged at error.
 */
export function failedReply(ctx: Pick<AppContext, "outage" | "log">, err: Error, what: string, detail: Record<string, unknown> = {}): SmtpReply {
  if (err instanceof BacklogFullError) return REPLY.backlogFull;
  const fault = ctx.outage.report("smtp", err, detail);
  if (!fault) ctx.log.error({ err, ...detail }, what);
  return fault === "disk-full" ? REPLY.diskFull : REPLY.temporary;
}

/** MAIL FROM's checks that need no query, in order; undefined: on to the domain's verification. */
export function senderRefusal(
  address: string,
  acceptance: Pick<AppContext, "disk" | "backlog">,
  senderDomains: () => AuthenticatedKey["senderDomains"],
): SmtpReply | undefined {
  if (!isValidEmail(address)) return REPLY.badSender;
  // Below MAILROOM_DISK_MIN_FREE nothing new is accepted: say so before the client sends the message.
  if (acceptance.disk.status()?.level === "critical") return REPLY.diskFull;
  // Too many messages wait for delivery (docs/contract.md §18): the client retries later, as after a 4xx it must.
  if (acceptance.backlog.full()) return REPLY.backlogFull;
  const domain = emailDomain(address);
  if (!keyMaySendFrom(senderDomains(), domain)) return REPLY.senderNotAllowedForKey(domain);
  return undefined;
}

/** RCPT's checks that need no query: the address, and the envelope's room for one more. */
export function recipientRefusal(address: string, recipientsSoFar: number): SmtpReply | undefined {
  if (!isValidEmail(address)) return REPLY.badRecipient;
  if (recipientsSoFar >= MAX_ENVELOPE_RECIPIENTS) return REPLY.tooManyRecipients(`at most ${MAX_ENVELOPE_RECIPIENTS} per message (10 To, 10 Cc, 5 Bcc)`);
  return undefined;
}

export function envelopeOf(session: Pick<SMTPServerSession, "envelope">): { mailFrom: string; rcptTo: string[] } {
  return {
    mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
    rcptTo: session.envelope.rcptTo.map((r) => r.address),
  };
}

const keyOf = (session: SMTPServerSession) => session.user as AuthenticatedKey;

/** The steps of a session, for both listeners; `servers` is filled in once they are made. */
export function sessionSteps(ctx: AppContext, tls: TlsMaterial | undefined, servers: readonly (SMTPServer | undefined)[]): SessionHandlers {
  const cfg = ctx.config.submission;
  const s: Sessions = {
    ctx,
    tls,
    servers,
    failures: new AuthFailures(cfg.authFailuresPerMinute),
    openPerAddress: new ConcurrentConnections(cfg.connectionsPerAddress),
    passwords: new WeakMap(),
    slots: new WeakMap(),
    submitDeps: { database: ctx.database, boss: ctx.boss, log: ctx.log, accept: ctx.accept, verifiedDomains: ctx.verifiedDomains },
  };
  return {
    onConnect: (session, callback) => admitSession(s, session, callback),
    onClose: (session) => endSession(s, session),
    onAuth: (auth, session, callback) => authenticate(s, auth, session, callback),
    onMailFrom: (address, session, callback) => checkSender(s, address, session, callback),
    onRcptTo: (address, session, callback) => checkRecipient(s, address, session, callback),
    onData: (stream, session, callback) => acceptMessage(s, stream, session, callback),
  };
}

/** Connect: counted against its address (421 past the cap), guarded until AUTH (session-guard.ts). */
function admitSession(s: Sessions, session: SMTPServerSession, callback: Callback): void {
  const remote = session.remoteAddress;
  // Gone already (closed while its greeting was pending): onClose has run, nothing to count.
  const conn = connectionOf(s.servers, session);
  if (!conn) return callback(refuse(SESSION_REPLY.tooManyConnections));
  const key = s.openPerAddress.admit(remote);
  if (key === undefined) {
    s.ctx.log.warn({ remote, limit: s.ctx.config.submission.connectionsPerAddress }, "SMTP submission connection refused: too many from this address");
    return callback(refuse(SESSION_REPLY.tooManyConnections));
  }
  const cancelDeadline = guardSession(conn, {
    clearAuthAllowed: isLoopback(remote),
    serverDisabled: s.tls ? [] : ["STARTTLS"],
    tlsRequiredReply: s.tls ? SESSION_REPLY.startTlsFirst : REPLY.encryptionRequired,
    refuseAuth: () => (s.failures.blocked(remote) ? REPLY.authThrottled : undefined),
    authTimeoutMs: s.ctx.config.submission.authTimeoutMs,
    onAuthTimeout: () => s.ctx.log.info({ remote }, "SMTP submission connection closed: no AUTH in time"),
  });
  s.slots.set(session, { key, cancelDeadline });
  callback();
}

function endSession(s: Sessions, session: SMTPServerSession): void {
  const slot = s.slots.get(session);
  if (!slot) return;
  s.slots.delete(session);
  slot.cancelDeadline();
  s.openPerAddress.release(slot.key);
}

/** AUTH: the password is an API key that may submit; a wrong one counts against the address. */
function authenticate(s: Sessions, auth: SMTPServerAuthentication, session: SMTPServerSession, callback: (err: Error | null | undefined, response?: { user: AuthenticatedKey }) => void): void {
  const remote = session.remoteAddress;
  // Refused at the AUTH command already (session-guard.ts); kept for a session that got here another way.
  if (!session.secure && !isLoopback(remote)) return callback(refuse(REPLY.encryptionRequired));
  if (s.failures.blocked(remote)) return callback(refuse(REPLY.authThrottled));
  const password = auth.password ?? "";
  authenticateApiKey(s.ctx.database, `Bearer ${password}`, s.ctx.apiKeyAuth).then(
    (result) => {
      if (!result.ok) {
        s.failures.fail(remote);
        return callback(refuse(authRefusal(result.code)));
      }
      // A valid key that may not send (docs/contract.md §17.2): not a failed guess, so not counted.
      if (!scopeMaySubmit(result.key.scope)) return callback(refuse(REPLY.scopeCannotSubmit(result.key.scope)));
      s.passwords.set(session, password);
      s.slots.get(session)?.cancelDeadline();
      callback(null, { user: result.key });
    },
    (err: Error) => callback(refuse(failedReply(s.ctx, err, "SMTP submission: AUTH failed"))),
  );
}

/** MAIL FROM: acceptance open (disk, backlog), the domain the key's and verified. */
function checkSender(s: Sessions, address: SMTPServerAddress, session: SMTPServerSession, callback: Callback): void {
  const paused = sendingPausedMessage(keyOf(session));
  if (paused) return callback(refuse(REPLY.sendingPaused(paused)));
  const refusal = senderRefusal(address.address, s.ctx, () => keyOf(session).senderDomains);
  if (refusal) return callback(refuse(refusal));
  const domain = emailDomain(address.address);
  isVerifiedDomain(s.ctx, keyOf(session).accountId, domain).then(
    (ok) => callback(ok ? undefined : refuse(REPLY.senderNotVerified(domain))),
    (err: Error) => callback(refuse(failedReply(s.ctx, err, "SMTP submission: MAIL FROM check failed"))),
  );
}

/** RCPT: a valid address, room in the envelope, not suppressed for the account. */
function checkRecipient(s: Sessions, address: SMTPServerAddress, session: SMTPServerSession, callback: Callback): void {
  const refusal = recipientRefusal(address.address, session.envelope.rcptTo.length);
  if (refusal) return callback(refuse(refusal));
  findSuppressedEmails(s.ctx.database, keyOf(session).accountId, [address.address]).then(
    (found) => {
      const row = found.get(normalizeEmail(address.address));
      callback(row ? refuse(REPLY.suppressed(row.reason)) : undefined);
    },
    (err: Error) => callback(refuse(failedReply(s.ctx, err, "SMTP submission: RCPT check failed"))),
  );
}

/** DATA: the message read within its bound, the key checked again, then POST /email's acceptance (submit-mime.ts). */
function acceptMessage(s: Sessions, stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null, message?: string) => void): void {
  const envelope = envelopeOf(session);
  const answer = async (): Promise<SmtpReply> => {
    // At most MAX_MESSAGE_BYTES is kept; the rest is drained and the message refused (552).
    const { raw, exceeded } = await readBoundedMessage(stream, MAX_MESSAGE_BYTES);
    if (exceeded) return REPLY.tooBig(MAX_MESSAGE_BYTES);
    const auth = await authenticateApiKey(s.ctx.database, `Bearer ${s.passwords.get(session) ?? ""}`, s.ctx.apiKeyAuth);
    if (!auth.ok) return authRefusal(auth.code);
    const paused = sendingPausedMessage(auth.key);
    if (paused) return REPLY.sendingPaused(paused);
    const result = await submitMime(s.submitDeps, auth.key, { raw, ...envelope });
    if (result.ok) s.ctx.log.info({ messageId: result.messageId, accountId: auth.key.accountId, recipients: envelope.rcptTo.length }, "SMTP submission accepted");
    return result.reply;
  };
  answer().then(
    (reply) => (reply.code === 250 ? callback(null, reply.text) : callback(refuse(reply))),
    (err: Error) => callback(refuse(failedReply(s.ctx, err, "SMTP submission: the message could not be accepted", envelope))),
  );
}
