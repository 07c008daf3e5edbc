import { describe, expect, it } from "vitest";
import { payloadJson, type InboundPayload } from "./payload";

const address = { Email: "a@b.example", Name: "A", MailboxHash: "" };
const payload = (attachments: InboundPayload["Attachments"]): InboundPayload => ({
  From: "a@b.example",
  FromName: 'Ann "Attachments":[] "Content":""',
  FromFull: address,
  To: "c@d.example",
  ToFull: [address],
  Cc: "",
  CcFull: [],
  Bcc: "",
  BccFull: [],
  OriginalRecipient: "c@d.example",
  ReplyTo: "",
  Subject: 'Quotes " and \\ and \u2028 and ✓',
  MessageID: "0b8a3c1e-1234-4abc-8def-0123456789ab",
  Date: "",
  MailboxHash: "",
  TextBody: "t",
  HtmlBody: "<p>h</p>",
  StrippedTextReply: "t",
  Tag: "",
  Headers: [{ Name: "X", Value: '"Content":""' }],
  Attachments: attachments,
  RepliedToMessageID: null,
  Authentication: { SPF: "none", DKIM: "none", DMARC: "none" },
});

describe("payloadJson", () => {
  it("is JSON.stringify's text exactly, with attachments or none, whatever the strings hold", () => {
    const attachments = [
      { Name: 'x","Content":"', Content: Buffer.from("one").toString("base64"), ContentType: "text/plain", ContentLength: 3, ContentID: "" },
      { Name: "big.bin", Content: "", ContentType: "application/octet-stream", ContentLength: 20, ContentID: "c1", DownloadURL: "https://x.example/t/inbound/abc" },
    ];
    for (const p of [payload([]), payload(attachments)]) expect(payloadJson(p)).toBe(JSON.stringify(p));
  });
});
