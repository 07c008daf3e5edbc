import { X509Certificate } from "node:crypto";
import net from "node:net";
import type tls from "node:tls";
import SMTPConnection from "nodemailer/lib/smtp-connection";
import { judgeSession, type HopTls, type SessionVerdict, type TlsFacts } from "./tls-policy/hop-tls";
import type { TlsVerdict } from "./tls-policy/tls-result";
import { phaseOfCommand, QUIT_TIMEOUT_MS, timeoutReason, type SmtpPhase } from "./smtp-slots";

/**
 * One connection of delivery's SMTP pool (smtp-client.ts): a TCP socket with
 * Nagle disabled (each SMTP command is its own small packet; with Nagle on,
 * every command waits for the previous ACK: docs/stack.md §5) under
 * nodemailer's SMTPConnection (greeting, EHLO, STARTTLS or implicit TLS,
 * AUTH), with the phase it is in kept current for the pool's phase limits
 * (docs/adr/0321), and its two ways to close.
 */

export interface SmtpTarget {
  host: string;
  port: number;
  /** Implicit TLS (smtps://). Otherwise STARTTLS is used when offered. */
  secure: boolean;
  auth?: { user: string; pass: string };
  /** Name for TLS SNI when `host` is an IP address (MX delivery). */
  servername?: string;
  /** Only over TLS: a peer that offers no STARTTLS gets no message (a deferral that says so). */
  requireTls?: boolean;
  /** The MX host's TLS policy (MTA-STS, DANE: tls-policy/hop-tls.ts); absent, opportunistic. */
  tls?: HopTls;
  /** The source address the connection binds to (an egress address, lib/delivery/egress); unset: the kernel's choice. */
  localAddress?: string;
  /** The EHLO name for this source (the egress address's); unset: the client's heloName. */
  heloName?: string;
}

/** How a transaction's connection is used, from the destination's shaping rule (destinations/gate.ts CopyShape). */
export interface ConnectionUse {
  /** A connection is closed after this many transactions. */
  messagesPerConnection?: number;
  /** Asked before a new connection is opened: 0 to open it, else the wait until one may be. */
  openRate?: { tryOpen(now: number): number };
}

export type SmtpError = Error & {
  code?: string;
  responseCode?: number;
  response?: string;
  rejectedErrors?: { responseCode?: number; response?: string }[];
  enhancedCode?: string;
  /** What TLS was when a TLS policy refused the session (tls-policy/hop-tls.ts). */
  tls?: TlsVerdict;
  /** Not tried for the destination's sake until then (a connection rate spent): no attempt spent. */
  heldUntil?: number;
};

export interface Connection {
  smtp?: SMTPConnection;
  /** Our TCP socket (under TLS, the one the TLS socket writes through). */
  socket: net.Socket;
  /** Closed or failed: never handed out again. */
  dead: boolean;
  phase: SmtpPhase | "idle";
  /** When the phase began (for data blocks: when the last block was handed over). */
  phaseSince: number;
  /** Last progress: a reply received (the next command written), data handed over. */
  progressAt: number;
  idleSince: number;
  /** Transactions begun on it (a rule's messagesPerConnection closes it). */
  transactions: number;
  /** The session's TLS verdict, judged once it was ready (tls-policy/hop-tls.ts). */
  tls?: TlsVerdict;
  timedOut?: { phase: SmtpPhase; limitMs: number; givenUp?: string };
}

export interface OpenOptions {
  heloName: string;
  /** SMTPConnection's own timers: only a backstop behind the pool's phase limits. */
  backstopMs: number;
  /** The trusted roots when not Node's defaults (MAILROOM_TLS_EXTRA_CA_FILE added to them). */
  ca?: string[];
  /** Told each session's TLS verdict under a policy (TLS-RPT counts them). */
  onTlsSession?(target: SmtpTarget, judged: SessionVerdict, address: { local?: string; remote?: string }): void;
}

/** A phase that ran out of time; or, `givenUp`, a probe the pool gave up at the stall time (its reason). */
export const timeoutError = (t: { phase: SmtpPhase; limitMs: number; givenUp?: string }): SmtpError =>
  t.givenUp
    ? Object.assign(new Error(t.givenUp), { code: "EGIVENUP", enhancedCode: "4.4.2" })
    : Object.assign(new Error(timeoutReason(t.phase, t.limitMs)), { code: "ETIMEDOUT", enhancedCode: t.phase === "connect" ? "4.4.1" : "4.4.2" });

const closedError = (target: SmtpTarget, when: string): SmtpError =>
  Object.assign(new Error(`Connection to ${target.host}:${target.port} closed${when}`), { code: "ECONNECTION" });

const tlsPolicyError = (target: SmtpTarget, judged: SessionVerdict): SmtpError => {
  const t = target.tls!;
  const policy = t.policy === "dane" ? "DANE (RFC 7672)" : `MTA-STS ${t.mode} (RFC 8461)`;
  return Object.assign(new Error(`TLS policy: ${judged.verdict.failure}; the ${policy} policy of ${t.policyDomain} allows no message to ${t.mxHost} without it, so nothing was sent`), {
    code: "ETLSPOLICY",
    enhancedCode: judged.failure?.resultType === "starttls-not-supported" ? "4.7.10" : "4.7.5",
    tls: judged.verdict,
  });
};

const tlsRequiredError = (target: SmtpTarget): SmtpError =>
  Object.assign(new Error(`TLS required: ${target.servername ?? target.host}:${target.port} offered no STARTTLS, so nothing was sent in clear (its shaping rule's requireTls)`), {
    code: "ETLSREQUIRED",
    enhancedCode: "4.7.10",
  });

export function enterPhase(c: Connection, phase: SmtpPhase | "idle"): void {
  c.phase = phase;
  c.phaseSince = c.progressAt = Date.now();
}

/** The private methods of SMTPConnection the phase watch wraps (nodemailer 8; see watchPhases). */
interface SmtpConnectionInternals {
  _sendCommand(this: unknown, str: unknown, logStr?: unknown): unknown;
  _createSendStream(this: unknown, callback: unknown): NodeJS.ReadableStream;
}

/**
 * Keeps `c.phase` current: each command written starts the phase of its
 * reply (and means the previous reply came: progress); the DATA stream's
 * blocks and its end are the data phases. SMTPConnection has no events for
 * these, so its two methods that every command and the message data pass
 * through are wrapped on the instance (observed, not changed).
 */
export function watchPhases(smtp: SMTPConnection, c: Connection): void {
  const internals = smtp as unknown as SmtpConnectionInternals;
  const sendCommand = internals._sendCommand;
  const createSendStream = internals._createSendStream;
  if (typeof sendCommand !== "function" || typeof createSendStream !== "function") {
    throw new Error("nodemailer's SMTPConnection has no _sendCommand/_createSendStream: lib/delivery/smtp-connection.ts watches the SMTP phases through them");
  }
  internals._sendCommand = function (str, logStr) {
    enterPhase(c, phaseOfCommand(String(str)));
    return sendCommand.call(this, str, logStr);
  };
  internals._createSendStream = function (callback) {
    const stream = createSendStream.call(this, callback);
    enterPhase(c, "data block");
    // A block piped on to the socket is progress; none while the socket does not drain (the peer does not read).
    stream.on("data", () => {
      c.phaseSince = c.progressAt = Date.now();
    });
    stream.once("end", () => enterPhase(c, "end of data"));
    return stream;
  };
}

/** SMTPConnection over our socket: the phase limits are the pool's (its tick), these timers only back them up. */
export function smtpConnectionOptions(socket: net.Socket, target: SmtpTarget, options: OpenOptions): SMTPConnection.Options {
  return {
    connection: socket,
    host: target.host,
    port: target.port,
    secure: target.secure,
    name: target.heloName ?? options.heloName,
    connectionTimeout: options.backstopMs,
    greetingTimeout: options.backstopMs,
    socketTimeout: options.backstopMs,
    // Encrypt when offered, never refuse in the handshake: a policy's check is ours, after it (judgeSession).
    tls: { rejectUnauthorized: false, servername: target.servername, ...(options.ca && { ca: options.ca }) },
  } as SMTPConnection.Options;
}

/**
 * A connection ready for a transaction: TCP, greeting and EHLO (STARTTLS when
 * offered), AUTH when the target has credentials. `track` is given it before
 * the TCP connect, so the pool's phase limits hold from the first byte. On a
 * failure it is dropped, and a phase that ran out of time is the error.
 */
export async function openConnection(target: SmtpTarget, options: OpenOptions, track: (c: Connection) => void): Promise<Connection> {
  const now = Date.now();
  const socket = net.connect({ host: target.host, port: target.port, ...(target.localAddress ? { localAddress: target.localAddress } : {}) });
  socket.setNoDelay(true);
  const c: Connection = { socket, dead: false, phase: "connect", phaseSince: now, progressAt: now, idleSince: now, transactions: 0 };
  track(c);
  try {
    await socketConnected(socket, target);
    enterPhase(c, "greeting");
    const smtp = new SMTPConnection(smtpConnectionOptions(socket, target, options));
    c.smtp = smtp;
    watchPhases(smtp, c);
    // An idle connection the peer closes (or that times out) must not crash anything: it is dropped.
    const drop = () => {
      c.dead = true;
    };
    smtp.on("error", drop);
    smtp.on("end", drop);
    await greeted(smtp, target);
    const judged = judgeSession(target.tls, tlsFactsOf(smtp, target.tls?.mxHost ?? target.servername ?? target.host));
    c.tls = judged.verdict;
    if (target.tls && target.tls.policy !== "opportunistic") options.onTlsSession?.(target, judged, { local: socket.localAddress, remote: socket.remoteAddress });
    if (judged.refuse) throw tlsPolicyError(target, judged);
    if (target.requireTls && !smtp.secure) throw tlsRequiredError(target);
    if (target.auth) await login(smtp, target.auth);
  } catch (err) {
    retireConnection(c, false);
    throw c.timedOut ? timeoutError(c.timedOut) : err;
  }
  return c;
}

/** What the session's TLS showed: nodemailer keeps the upgraded socket as `_socket`. */
function tlsFactsOf(smtp: SMTPConnection, name: string): TlsFacts {
  const socket = (smtp as unknown as { _socket?: tls.TLSSocket })._socket;
  if (!smtp.secure || !socket || typeof socket.getPeerCertificate !== "function") return { secure: false, chainTrusted: false, nameMatches: false, chain: [] };
  const chain: Buffer[] = [];
  for (let cert = socket.getPeerCertificate(true); cert?.raw && chain.length < 10; cert = cert.issuerCertificate) {
    chain.push(cert.raw);
    if (cert.issuerCertificate === cert) break;
  }
  const error = socket.authorizationError === undefined ? undefined : String(socket.authorizationError);
  let nameMatches = false;
  try {
    nameMatches = chain.length > 0 && new X509Certificate(chain[0]!).checkHost(name) !== undefined;
  } catch {
    nameMatches = false;
  }
  return {
    secure: true,
    protocol: socket.getProtocol() ?? undefined,
    cipher: socket.getCipher()?.name,
    // Node's check includes the name (servername): a name mismatch alone leaves the chain trusted.
    chainTrusted: socket.authorized || error === "ERR_TLS_CERT_ALTNAME_INVALID",
    chainError: socket.authorized ? undefined : error,
    nameMatches,
    chain,
  };
}

function socketConnected(socket: net.Socket, target: SmtpTarget): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const fail = (err: Error) => {
      socket.removeListener("close", closed);
      reject(err);
    };
    const closed = () => fail(closedError(target, ""));
    socket.once("error", fail);
    socket.once("close", closed);
    socket.once("connect", () => {
      socket.removeListener("error", fail);
      socket.removeListener("close", closed);
      resolve();
    });
  });
}

function greeted(smtp: SMTPConnection, target: SmtpTarget): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    smtp.once("error", reject);
    smtp.once("end", () => reject(closedError(target, " before it was ready")));
    smtp.connect(() => resolve());
  });
}

function login(smtp: SMTPConnection, auth: { user: string; pass: string }): Promise<void> {
  return new Promise<void>((resolve, reject) => smtp.login(auth, (err) => (err ? reject(err) : resolve())));
}

/** The socket goes within QUIT_TIMEOUT_MS, whatever the peer does. */
function destroyLater(c: Connection): void {
  const timer = setTimeout(() => c.socket.destroy(), QUIT_TIMEOUT_MS);
  timer.unref();
  c.socket.once("close", () => clearTimeout(timer));
}

/** Politely (QUIT) when the connection is sound, else at once; the socket goes within QUIT_TIMEOUT_MS either way. */
export function quitConnection(c: Connection): void {
  c.dead = true;
  c.smtp?.quit();
  destroyLater(c);
}

/** A failed connection: closed (FIN) when `graceful`, else dropped at once; never used again. */
export function retireConnection(c: Connection, graceful: boolean): void {
  c.dead = true;
  c.smtp?.close();
  if (!graceful) {
    c.socket.destroy();
    return;
  }
  destroyLater(c);
}
