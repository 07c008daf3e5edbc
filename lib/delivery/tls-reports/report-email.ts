import { TRACKING_HEADER, type EmailRequest } from "../../contract/email";

/** RFC 8460's media type of a gzip-compressed report. */
export const TLSRPT_CONTENT_TYPE = "application/tlsrpt+gzip";

/** The report as a message of the system sender (RFC 8460 §5.3's subject and headers), queued like any message. */
export function reportEmail(input: { from: string; to: string; domain: string; submitter: string; reportId: string; gz: Buffer; fileName: string }): EmailRequest {
  return {
    From: { name: "Mailroom TLS reports", email: input.from },
    To: [{ name: "", email: input.to }],
    Subject: `Report Domain: ${input.domain} Submitter: ${input.submitter} Report-ID: <${input.reportId}>`,
    ContentType: "Text",
    PlainContent: [
      `This is an aggregate TLS report (RFC 8460) from ${input.submitter} for ${input.domain}.`,
      "",
      `Report-ID: <${input.reportId}>`,
      `The report is attached: ${input.fileName}`,
    ].join("\n"),
    Tags: ["mailroom-tlsrpt"],
    Headers: { "TLS-Report-Domain": input.domain, "TLS-Report-Submitter": input.submitter, [TRACKING_HEADER]: "none" },
    Attachments: [{ Content: input.gz.toString("base64"), Type: TLSRPT_CONTENT_TYPE, Filename: input.fileName }],
  };
}
