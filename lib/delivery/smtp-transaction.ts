import { Readable } from "node:stream";
import type SMTPConnection from "nodemailer/lib/smtp-connection";
import type { SmtpAnswer } from "./classify";
import { PACED_CHUNK_BYTES, pacedStream } from "./paced-stream";
import { timeoutError, type Connection, type SmtpError } from "./smtp-connection";

/**
 * One SMTP transaction (MAIL FROM, RCPT TO, DATA) on an open connection of
 * delivery's pool (smtp-client.ts), and what its end means: the answer to
 * classify (classify.ts), whether the peer answered, and whether the
 * message may go out once more on a fresh connection.
 */

export interface Envelope {
  from: string;
  to: string;
  /** When the message was accepted (ms since the epoch): the probe line serves the newest first (smtp-slots.ts). */
  acceptedAt?: number;
}

/** The first reply code of a server's response ("250 2.0.0 Ok" → 250). */
export function replyCode(response: string | undefined): number | undefined {
  const m = /^([2-5]\d\d)\b/.exec((response ?? "").trim());
  return m ? Number(m[1]) : undefined;
}

/** The lane of a transaction by default: its recipient's domain, lowercased. */
export const laneOfRecipient = (to: string): string => to.slice(to.lastIndexOf("@") + 1).toLowerCase();

/** A message the peer accepted. */
export const answerOfSent = (info: SMTPConnection.SentMessageInfo): SmtpAnswer => ({ responseCode: replyCode(info.response) ?? 250, response: info.response });

/** A request that never got a slot: no transaction, no reply. */
export const answerOfNotTried = (err: SmtpError): SmtpAnswer => ({ response: err.message, errorCode: err.code, enhancedCode: err.enhancedCode });

/** A transaction that failed: the recipient's rejection first, else the error's reply, else its message. */
export function answerOfFailure(err: SmtpError): SmtpAnswer {
  const rejected = err.rejectedErrors?.[0];
  return {
    responseCode: rejected?.responseCode ?? err.responseCode,
    response: rejected?.response ?? err.response ?? err.message,
    errorCode: err.code,
    enhancedCode: err.enhancedCode,
    ...(err.heldUntil !== undefined && { heldUntil: err.heldUntil }),
  };
}

/** The peer replied to the transaction (a 4xx or 5xx): its lane got an answer, whatever it was. */
export const wasAnswered = (err: SmtpError): boolean => err.responseCode !== undefined || err.rejectedErrors !== undefined;

/**
 * A pooled connection found closed before MAIL FROM was answered (the peer
 * closed it while idle, or at that moment), or closed with a 421 that crossed
 * our MAIL FROM (a peer's idle timeout, which smtp-server sets at 60 s, as
 * long as our idle close): nothing of the message can have been accepted, so
 * it goes out once more on a fresh connection. A timeout, or anything after
 * that first reply, is the answer.
 */
export function mayResendOnFreshConnection(failure: { reused: boolean; attempt: number; connection: Connection; err: SmtpError }): boolean {
  const { reused, attempt, connection, err } = failure;
  return (
    reused &&
    attempt === 0 &&
    !connection.timedOut &&
    (connection.phase === "idle" || connection.phase === "MAIL") &&
    ((err.responseCode === undefined && (err.code === "ECONNECTION" || err.code === "ESOCKET")) || err.responseCode === 421)
  );
}

/** MAIL FROM, RCPT TO and DATA `raw` on `connection`; rejects with the peer's answer, or with the phase that timed out. */
export function runTransaction(connection: Connection, envelope: Envelope, raw: Buffer): Promise<SMTPConnection.SentMessageInfo> {
  const smtp = connection.smtp!;
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
      if (err && !Buffer.isBuffer(message)) message.destroy();
      if (err) reject(connection.timedOut ? timeoutError(connection.timedOut) : err);
      else resolve(info!);
    };
    smtp.once("error", onError);
    smtp.once("end", onEnd);
    smtp.send({ from: envelope.from, to: [envelope.to] }, message, (err, info) => settle(err, info));
  });
}
