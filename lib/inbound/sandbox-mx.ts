import { Headers } from "@zone-eu/mailsplit";
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from "smtp-server";
import { readBoundedMessage } from "./smtp-limits";
import type { AppContext } from "../context";
import type { Database, Queryable } from "../storage/database";
import { createGroupCommit } from "../storage/group-commit";
import { appendSandboxCaptureRaw, insertSandboxCaptures } from "../storage/sandbox-rows";
import { isRowDataError } from "../storage/sqlstate";
import { withTransaction } from "../storage/transaction";
import { parseVerpAddress } from "../tracking/verp";
import { buildArfReport } from "./arf";

/**
 * The sandbox MX: an SMTP server on loopback that plays every recipient's
 * mail server. It answers by the recipient's local part (before any +tag):
 *   bounce@…    550 5.1.1 (failed, suppressed)
 *   blocked@…   550 5.7.1 (rejected)
 *   defer@…     451 4.7.1 every time (retried, then failed)
 *   complaint@… 250, then an ARF complaint back through the inbound path
 *   anyone else 250 (delivered)
 * Everything it accepts is stored in sandbox_messages for the dashboard,
 * filed under the message and account of the recipient row that the signed
 * VERP envelope sender names; a MAIL FROM that is no signed VERP address of
 * ours is refused (docs/adr/0307). Headers (Message-ID, Subject) are only
 * shown, never used to file a capture: the sender writes them.
 */

/** Largest copy the sandbox keeps (a 15 MiB API body with attachments encodes to ~20 MB of MIME). */
const SANDBOX_MAX_MESSAGE_BYTES = 40 * 1024 * 1024;

export interface SandboxMx {
  host: string;
  port: number;
  stop(): Promise<void>;
}

export interface SandboxOptions {
  port: number;
  /** The tracking secret: a MAIL FROM must be a VERP address it signed (lib/tracking/verp.ts). */
  secret: string;
  /** Sends a feedback report back to the service (inbound SMTP, or handled in process). */
  submitReport(raw: Buffer, envelope: { from: string; to: string }): Promise<void>;
}

export function sandboxBehaviour(address: string): "bounce" | "blocked" | "defer" | "complaint" | "accept" {
  const local = address.split("@")[0]!.toLowerCase().split("+")[0]!;
  if (local === "bounce" || local === "blocked" || local === "defer" || local === "complaint") return local;
  return "accept";
}

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

/** How much of a capture's start is read for its Message-ID and Subject (shown in the list, never used to file it). */
const HEADER_SCAN_BYTES = 64 * 1024;

/** The Message-ID and Subject as written (unfolded), read by mailsplit's header parser from the bounded start of the message. */
export function listedHeaders(raw: Buffer): { messageIdHeader: string; subject: string } {
  const start = raw.subarray(0, HEADER_SCAN_BYTES);
  const crlf = start.indexOf("\r\n\r\n");
  const lf = start.indexOf("\n\n");
  const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf : lf;
  const headers = new Headers(end >= 0 ? start.subarray(0, end) : start);
  const first = (key: string) => headers.getDecoded(key)[0]?.value.trim() ?? "";
  return { messageIdHeader: first("message-id"), subject: first("subject") };
}

interface Capture {
  mailFrom: string;
  rcptTo: string[];
  subject: string;
  messageIdHeader: string;
  /** The recipient row its signed VERP envelope sender names: the capture's message and account come from it. */
  recipientId: number;
  /** The Return-Path line this MX adds. */
  returnPath: Buffer;
  /** The message as received. */
  data: Buffer;
}

const rawOf = (c: Capture) => Buffer.concat([c.returnPath, c.data]);
const sizeOf = (c: Capture) => c.returnPath.length + c.data.length;

/**
 * A capture larger than this is not carried in the statement's JSON (base64
 * inside JSON.stringify, one step of ~100 ms for 10 MB): its bytes follow as a
 * binary bytea parameter, which the driver copies as they are (the stall budget, ADR 0310).
 */
const INLINE_CAPTURE_BYTES = 256 * 1024;

/** Stores captures; the ids of the rows, in order. One statement for many (prepared: constant text), plus one per large capture. */
async function storeCaptures(database: Database, captures: Capture[]): Promise<number[]> {
  if (captures.every((c) => sizeOf(c) <= INLINE_CAPTURE_BYTES)) return insertCaptures(database, captures);
  return withTransaction(database, async (tx) => {
    const ids = await insertCaptures(tx, captures);
    for (const [i, c] of captures.entries()) {
      if (sizeOf(c) <= INLINE_CAPTURE_BYTES) continue;
      await appendSandboxCaptureRaw(tx, ids[i]!, c.returnPath, c.data);
    }
    return ids;
  });
}

function insertCaptures(q: Queryable, captures: Capture[]): Promise<number[]> {
  return insertSandboxCaptures(
    q,
    captures.map((c) => ({
      mail_from: c.mailFrom,
      rcpt_to: c.rcptTo,
      subject: c.subject,
      message_id_header: c.messageIdHeader,
      recipient_id: c.recipientId,
      size: sizeOf(c),
      raw: sizeOf(c) <= INLINE_CAPTURE_BYTES ? rawOf(c).toString("base64") : "",
    })),
  );
}

export async function startSandboxMx(ctx: AppContext, options: SandboxOptions): Promise<SandboxMx> {
  const timers = new Set<NodeJS.Timeout>();
  // Captures that arrive while others are being stored are stored together (a busy sandbox receives hundreds a
  // second); four writes at a time, because every SMTP transaction of the delivery side waits for its own.
  const store = createGroupCommit((captures: Capture[]) => storeCaptures(ctx.database, captures), {
    maxBatch: 64,
    maxInFlight: 4,
    isolate: isRowDataError,
  });
  const server = new SMTPServer({
    name: "sandbox.mailroom.invalid",
    banner: "Mailroom sandbox MX",
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    logger: false,
    // Only this process's delivery client connects (loopback, up to 32 pooled connections):
    // no per-address rate, but bounded sessions and messages all the same.
    size: SANDBOX_MAX_MESSAGE_BYTES,
    maxClients: 256,
    disableReverseLookup: true,
    onMailFrom(address: SMTPServerAddress, _session: SMTPServerSession, callback: (err?: Error | null) => void) {
      // Only this service's delivery sends here, always from a signed VERP return path; it names the copy's recipient row.
      if (parseVerpAddress(options.secret, address.address) === undefined) {
        return callback(smtpError(550, "5.7.1 The sandbox MX accepts only mail sent by this service, from its signed return path (sandbox)"));
      }
      return callback();
    },
    onRcptTo(address: SMTPServerAddress, _session: SMTPServerSession, callback: (err?: Error | null) => void) {
      switch (sandboxBehaviour(address.address)) {
        case "bounce":
          return callback(smtpError(550, `5.1.1 <${address.address}>: Recipient address rejected: User unknown (sandbox)`));
        case "blocked":
          return callback(smtpError(550, `5.7.1 <${address.address}>: Message rejected by policy (sandbox)`));
        case "defer":
          return callback(smtpError(451, `4.7.1 <${address.address}>: Try again later (sandbox)`));
        default:
          return callback();
      }
    },
    onData(stream, session, callback) {
      readBoundedMessage(stream, SANDBOX_MAX_MESSAGE_BYTES).then(({ raw: data, exceeded }) => {
        if (exceeded) return callback(smtpError(552, "5.3.4 Message too big (sandbox)"));
        void (async () => {
          const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
          const rcptTo = session.envelope.rcptTo.map((r) => r.address);
          // As a final delivery MTA does: record the envelope sender.
          const returnPath = Buffer.from(`Return-Path: <${mailFrom}>\r\n`);
          const recipientId = parseVerpAddress(options.secret, mailFrom);
          if (recipientId === undefined) throw new Error("sandbox MX: DATA without a signed envelope sender");
          const capture = { mailFrom, rcptTo, ...listedHeaders(data), recipientId, returnPath, data };
          const id = await store(capture);
          const complaints = rcptTo.filter((r) => sandboxBehaviour(r) === "complaint");
          const raw = complaints.length > 0 ? rawOf(capture) : Buffer.alloc(0);
          for (const rcpt of complaints) {
            const timer = setTimeout(() => {
              timers.delete(timer);
              const report = buildArfReport({
                original: raw,
                originalMailFrom: mailFrom,
                originalRcptTo: rcpt,
                reporter: `fbl@${rcpt.split("@")[1] ?? "sandbox.invalid"}`,
                to: mailFrom,
              });
              options.submitReport(report, { from: `fbl@${rcpt.split("@")[1] ?? "sandbox.invalid"}`, to: mailFrom }).catch((err: Error) =>
                ctx.log.warn({ err, rcpt }, "sandbox complaint could not be sent"),
              );
            }, ctx.config.delivery.sandboxComplaintDelayMs);
            timers.add(timer);
          }
          return id;
        })().then(
          (id) => callback(null, `2.0.0 Ok: queued as sandbox-${id}`),
          (err: Error) => {
            // A database outage is logged once per outage (docs/adr/0008); a defect every time.
            const fault = ctx.outage.report("sandbox", err);
            if (!fault) ctx.log.error({ err }, "sandbox MX could not store a message");
            callback(fault === "disk-full" ? smtpError(452, "4.3.1 Mail system full (sandbox)") : smtpError(451, "4.3.0 Temporary storage failure (sandbox)"));
          },
        );
      }, (err: Error) => callback(err));
    },
  });
  server.on("error", (err) => ctx.log.warn({ err }, "sandbox MX error"));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  const port = (server.server.address() as { port: number }).port;
  return {
    host: "127.0.0.1",
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.close(() => resolve());
      }),
  };
}
