import net from "node:net";
import { Readable } from "node:stream";
import SMTPConnection from "nodemailer/lib/smtp-connection";
import type { SmtpAnswer } from "./classify";
import { PACED_CHUNK_BYTES, pacedStream } from "./paced-stream";

/**
 * Pooled SMTP client connections: nodemailer's SMTPConnection (the protocol:
 * EHLO, STARTTLS or implicit TLS, AUTH, MAIL/RCPT/DATA, dot-stuffing) over
 * sockets with Nagle disabled (each SMTP command is its own small packet;
 * with Nagle on, every command waits for the previous ACK: docs/stack.md §5, 22 →
 * ~590 messages/s on one connection). The pool is ours, not nodemailer's
 * (docs/adr/0023): its Mailer layer (MimeNode, plugins, streams) took half
 * of the client's CPU per message for bytes that are already a message.
 *
 * Per destination (host, port, TLS, user): at most `maxConnections`
 * transactions at once, idle connections reused. A connection that failed a
 * transaction is closed (its state after an error is unknown), as nodemailer's
 * pool does. A reused connection that turns out dead (the peer closed it while
 * idle) is replaced once: the message goes out on a fresh one instead of
 * waiting for the retry schedule.
 */

export interface SmtpTarget {
  host: string;
  port: number;
  /** Implicit TLS (smtps://). Otherwise STARTTLS is used when offered. */
  secure: boolean;
  auth?: { user: string; pass: string };
  /** Name for TLS SNI when `host` is an IP address (MX delivery). */
  servername?: string;
}

export interface SmtpClientOptions {
  heloName: string;
  maxConnections: number;
  connectionTimeoutMs?: number;
  socketTimeoutMs?: number;
}

export interface SendOutcome {
  answer: SmtpAnswer;
  durationMs: number;
}

type SmtpError = Error & {
  code?: string;
  responseCode?: number;
  response?: string;
  rejectedErrors?: { responseCode?: number; response?: string }[];
};

/** Errors of the connection itself, not answers of the server: worth one more try on a fresh connection. */
const CONNECTION_ERRORS = new Set(["ECONNECTION", "ESOCKET", "ETIMEDOUT", "EPROTOCOL"]);

function connectSocket(host: string, port: number, timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    socket.setNoDelay(true);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`Connection to ${host}:${port} timed out`), { code: "ETIMEDOUT" }));
    }, timeoutMs);
    socket.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.removeAllListeners("error");
      resolve(socket);
    });
  });
}

const replyCode = (response: string | undefined) => {
  const m = /^([2-5]\d\d)\b/.exec((response ?? "").trim());
  return m ? Number(m[1]) : undefined;
};

interface Connection {
  smtp: SMTPConnection;
  /** Closed or failed: never handed out again. */
  dead: boolean;
}

interface Destination {
  idle: Connection[];
  /** Transactions running (each holds a connection). */
  busy: number;
  waiting: (() => void)[];
}

export class SmtpClient {
  private destinations = new Map<string, Destination>();
  private closed = false;
  constructor(private readonly options: SmtpClientOptions) {}

  private destination(target: SmtpTarget): Destination {
    const key = `${target.host}:${target.port}:${target.secure}:${target.auth?.user ?? ""}`;
    let d = this.destinations.get(key);
    if (!d) {
      d = { idle: [], busy: 0, waiting: [] };
      this.destinations.set(key, d);
    }
    return d;
  }

  private async open(target: SmtpTarget): Promise<Connection> {
    const connectionTimeout = this.options.connectionTimeoutMs ?? 30_000;
    const socket = await connectSocket(target.host, target.port, connectionTimeout);
    const smtp = new SMTPConnection({
      connection: socket,
      host: target.host,
      port: target.port,
      secure: target.secure,
      name: this.options.heloName,
      connectionTimeout,
      // A peer that accepts the connection and never greets is a connection that never came up.
      greetingTimeout: connectionTimeout,
      socketTimeout: this.options.socketTimeoutMs ?? 120_000,
      // Opportunistic TLS, as MTAs do: encrypt when offered, do not insist on a public certificate.
      tls: { rejectUnauthorized: false, servername: target.servername },
    } as SMTPConnection.Options);
    const connection: Connection = { smtp, dead: false };
    // An idle connection the peer closes (or that times out) must not crash anything: it is dropped.
    const drop = () => {
      connection.dead = true;
    };
    smtp.on("error", drop);
    smtp.on("end", drop);
    try {
      await new Promise<void>((resolve, reject) => {
        smtp.once("error", reject);
        smtp.once("end", () => reject(Object.assign(new Error(`Connection to ${target.host}:${target.port} closed before it was ready`), { code: "ECONNECTION" })));
        smtp.connect(() => resolve());
      });
      if (target.auth) {
        const auth = target.auth;
        await new Promise<void>((resolve, reject) => smtp.login(auth, (err) => (err ? reject(err) : resolve())));
      }
    } catch (err) {
      connection.dead = true;
      smtp.close();
      throw err;
    }
    return connection;
  }

  private async acquire(d: Destination): Promise<void> {
    while (d.busy >= this.options.maxConnections) await new Promise<void>((resolve) => d.waiting.push(resolve));
    d.busy++;
  }

  private release(d: Destination, connection: Connection | undefined): void {
    if (connection && !connection.dead && !this.closed) d.idle.push(connection);
    else if (connection && !connection.dead) connection.smtp.quit();
    d.busy--;
    d.waiting.shift()?.();
  }

  private transaction(connection: Connection, envelope: { from: string; to: string }, raw: Buffer): Promise<SMTPConnection.SentMessageInfo> {
    const { smtp } = connection;
    // A large message reaches the dot-stuffing in 64 KB pieces, a turn of the event loop before each (the stall budget, ADR 0310).
    const message = raw.length > PACED_CHUNK_BYTES ? Readable.from([raw]).pipe(pacedStream()) : raw;
    return new Promise((resolve, reject) => {
      // The server's answers come to the callback; a connection that fails (closed, timed out) is only an
      // `error`/`end` event of the connection, and without these the transaction would wait for ever.
      const onError = (err: Error) => settle(err);
      const onEnd = () => settle(Object.assign(new Error("Connection closed unexpectedly"), { code: "ECONNECTION" }));
      const settle = (err: Error | null, info?: SMTPConnection.SentMessageInfo) => {
        smtp.removeListener("error", onError);
        smtp.removeListener("end", onEnd);
        if (err) reject(err);
        else resolve(info!);
      };
      smtp.once("error", onError);
      smtp.once("end", onEnd);
      smtp.send({ from: envelope.from, to: [envelope.to] }, message, (err, info) => settle(err, info));
    });
  }

  /** One SMTP transaction: MAIL FROM `from`, RCPT TO `to`, DATA `raw`. Never throws. */
  async send(target: SmtpTarget, envelope: { from: string; to: string }, raw: Buffer): Promise<SendOutcome> {
    const started = Date.now();
    const d = this.destination(target);
    await this.acquire(d);
    let connection: Connection | undefined;
    try {
      for (let attempt = 0; ; attempt++) {
        let reused = false;
        connection = undefined;
        while (d.idle.length > 0 && !connection) {
          const c = d.idle.pop()!;
          if (!c.dead) connection = c;
        }
        if (connection) reused = true;
        else connection = await this.open(target);
        try {
          const info = await this.transaction(connection, envelope, raw);
          return { answer: { responseCode: replyCode(info.response) ?? 250, response: info.response }, durationMs: Date.now() - started };
        } catch (e) {
          connection.dead = true;
          connection.smtp.close();
          const err = e as SmtpError;
          if (!(reused && attempt === 0 && err.code !== undefined && CONNECTION_ERRORS.has(err.code) && err.responseCode === undefined)) throw err;
        }
      }
    } catch (e) {
      const err = e as SmtpError;
      const rejected = err.rejectedErrors?.[0];
      return {
        answer: {
          responseCode: rejected?.responseCode ?? err.responseCode,
          response: rejected?.response ?? err.response ?? err.message,
          errorCode: err.code,
        },
        durationMs: Date.now() - started,
      };
    } finally {
      this.release(d, connection);
    }
  }

  close(): void {
    this.closed = true;
    for (const d of this.destinations.values()) {
      for (const c of d.idle.splice(0)) if (!c.dead) c.smtp.quit();
    }
    this.destinations.clear();
  }
}
