import type { TrackingMode } from "../../contract/email";

/**
 * What POST /email stores in `messages.content` (jsonb): the normalised
 * request, everything the delivery worker needs to build the MIME message.
 * Addresses are as given (trimmed), names "" when absent.
 */
export interface ContentAddress {
  name: string;
  email: string;
}

export interface ContentAttachment {
  /** Strict base64 of the file, as received. */
  content: string;
  /** Path and control characters stripped. */
  filename: string;
  /** MIME type, given or inferred from the filename. */
  type: string;
  disposition: "attachment" | "inline";
  /** Content-ID without angle brackets, when given. */
  contentId?: string;
}

export interface MessageContent {
  from: ContentAddress;
  to: ContentAddress[];
  cc: ContentAddress[];
  bcc: ContentAddress[];
  replyTo: ContentAddress[];
  subject: string;
  /** HTML whenever an HTML body is present, whatever was sent. */
  contentType: "HTML" | "Text";
  html?: string;
  text?: string;
  attachments: ContentAttachment[];
  /** Custom headers as [name, value] in request order, X-Mailroom-Track removed. */
  headers: [string, string][];
  tags: string[];
  /** The X-Mailroom-Track override; absent: the account's settings apply. */
  tracking?: TrackingMode;
  /**
   * An SMTP submission (docs/adr/0700): base64 of the message as accepted
   * (its own MIME, with Message-ID and Date added when missing and Bcc
   * removed). Delivery sends these bytes, adding only List-Unsubscribe,
   * tracking in text/html parts and DKIM; html, text and attachments are then empty.
   */
  mime?: string;
}
