import net from "node:net";
import type { Transform } from "node:stream";
import nodemailer from "nodemailer";
import type SMTPPool from "nodemailer/lib/smtp-pool";
import type { SmtpAnswer } from "./classify";
import { PACED_CHUNK_BYTES, pacedStream } from "./paced-stream";

/**
 * Pooled SMTP client connections (nodemailer's pool) with Nagle disabled:
 * nodemailer writes each SMTP command as its own small packet, and with
 * Nagle on, every command waits for the previous ACK (STACK.md: 22 → ~590
 * messages/s on one connection). One pool per destination host and port.
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

/** What nodemailer reports as the Message-ID of a raw message (never written: the raw bytes are sent as they are). */
const RAW_MESSAGE_ID = "<raw@mailroom.invalid>";

export class SmtpClient {
  private pools = new Map<string, nodemailer.Transporter<SMTPPool.SentMessageInfo>>();
  constructor(private readonly options: SmtpClientOptions) {}

  private pool(target: SmtpTarget) {
    const key = `${target.host}:${target.port}:${target.secure}:${target.auth?.user ?? ""}`;
    let pool = this.pools.get(key);
    if (!pool) {
      const connectionTimeout = this.options.connectionTimeoutMs ?? 30_000;
      pool = nodemailer.createTransport({
        pool: true,
        host: target.host,
        port: target.port,
        secure: target.secure,
        auth: target.auth,
        name: this.options.heloName,
        maxConnections: this.options.maxConnections,
        maxMessages: Infinity,
        connectionTimeout,
        greetingTimeout: 30_000,
        socketTimeout: this.options.socketTimeoutMs ?? 120_000,
        // Opportunistic TLS, as MTAs do: encrypt when offered, do not insist on a public certificate.
        tls: { rejectUnauthorized: false, servername: target.servername },
        getSocket: (opts: { host?: string; port?: number }, callback: (err: Error | null, socket?: { connection: net.Socket }) => void) => {
          connectSocket(opts.host ?? target.host, opts.port ?? target.port, connectionTimeout).then(
            (connection) => callback(null, { connection }),
            (err: Error) => callback(err),
          );
        },
      } as SMTPPool.Options);
      // Idle pooled connections that the peer closes must not crash anything.
      pool.on("error", () => {});
      // A large message reaches the SMTP writer in 64 KB pieces (a factory: a requeued message streams again).
      pool.use("stream", (mail, done) => {
        const raw = mail.data.raw;
        if (Buffer.isBuffer(raw) && raw.length > PACED_CHUNK_BYTES) mail.message.transform(pacedStream as unknown as Transform); // typed as a stream; mime-node calls a function per read
        done();
      });
      this.pools.set(key, pool);
    }
    return pool;
  }

  /** One SMTP transaction: MAIL FROM `from`, RCPT TO `to`, DATA `raw`. Never throws. */
  async send(target: SmtpTarget, envelope: { from: string; to: string }, raw: Buffer): Promise<SendOutcome> {
    const started = Date.now();
    try {
      // The raw bytes carry their own Message-ID; given one here, nodemailer does not make up a random
      // one for its `info` (five randomBytes calls per message, ~2% of a worker: docs/adr/0320).
      const info = await this.pool(target).sendMail({ envelope: { from: envelope.from, to: [envelope.to] }, raw, messageId: RAW_MESSAGE_ID });
      return { answer: { responseCode: replyCode(info.response) ?? 250, response: info.response }, durationMs: Date.now() - started };
    } catch (e) {
      const err = e as Error & {
        code?: string;
        responseCode?: number;
        response?: string;
        rejectedErrors?: { responseCode?: number; response?: string }[];
      };
      const rejected = err.rejectedErrors?.[0];
      return {
        answer: {
          responseCode: rejected?.responseCode ?? err.responseCode,
          response: rejected?.response ?? err.response ?? err.message,
          errorCode: err.code,
        },
        durationMs: Date.now() - started,
      };
    }
  }

  close(): void {
    for (const pool of this.pools.values()) pool.close();
    this.pools.clear();
  }
}
