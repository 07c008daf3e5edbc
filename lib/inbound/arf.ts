import { randomUUID } from "node:crypto";

/**
 * Builds an ARF feedback report (RFC 5965): multipart/report;
 * report-type=feedback-report with a human part, the machine-readable
 * message/feedback-report part and the original message. The sandbox MX
 * sends one for `complaint@…` recipients, the sandbox inbox's "Report as
 * spam" sends one for any captured message.
 */
export interface ArfInput {
  /** The reported message as received (headers and body). */
  original: Buffer;
  /** Envelope sender of the original (our VERP address). */
  originalMailFrom: string;
  /** The recipient who complained. */
  originalRcptTo: string;
  /** Who sends the report (the "mailbox provider"). */
  reporter: string;
  /** Where the report goes. */
  to: string;
  feedbackType?: "abuse" | "fraud" | "virus" | "other";
  userAgent?: string;
  arrivalDate?: Date;
}

export function buildArfReport(input: ArfInput): Buffer {
  const boundary = `arf-${randomUUID()}`;
  const reporterDomain = input.reporter.split("@")[1] ?? "localhost";
  const originalText = input.original.toString("utf8");
  const headerEnd = originalText.search(/\r?\n\r?\n/);
  const subject = /^Subject:[ \t]*(.*(?:\r?\n[ \t].*)*)/im.exec(headerEnd >= 0 ? originalText.slice(0, headerEnd) : originalText)?.[1] ?? "";
  const lines = [
    `From: Feedback Loop <${input.reporter}>`,
    `To: <${input.to}>`,
    `Subject: FW: ${subject.replace(/\r?\n[ \t]*/g, " ")}`.slice(0, 900),
    `Date: ${new Date().toUTCString().replace("GMT", "+0000")}`,
    `Message-ID: <${randomUUID()}@${reporterDomain}>`,
    "MIME-Version: 1.0",
    `Content-Type: multipart/report; report-type=feedback-report; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: 7bit",
    "",
    `This is an email abuse report for an email message received by ${input.originalRcptTo}.`,
    "",
    `--${boundary}`,
    "Content-Type: message/feedback-report",
    "",
    `Feedback-Type: ${input.feedbackType ?? "abuse"}`,
    `User-Agent: ${input.userAgent ?? "Mailroom-Sandbox/1.0"}`,
    "Version: 1",
    `Original-Mail-From: <${input.originalMailFrom}>`,
    `Original-Rcpt-To: <${input.originalRcptTo}>`,
    `Arrival-Date: ${(input.arrivalDate ?? new Date()).toUTCString().replace("GMT", "+0000")}`,
    `Reported-Domain: ${input.originalRcptTo.split("@")[1] ?? ""}`,
    "",
    `--${boundary}`,
    "Content-Type: message/rfc822",
    "Content-Disposition: inline",
    "",
  ];
  return Buffer.concat([
    Buffer.from(lines.join("\r\n") + "\r\n"),
    input.original,
    Buffer.from(`${input.original.subarray(-2).toString() === "\r\n" ? "" : "\r\n"}--${boundary}--\r\n`),
  ]);
}
