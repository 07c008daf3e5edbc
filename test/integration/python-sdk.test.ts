import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestAccount } from "../support/fixtures";
import { waitForEvent } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The official Python SDK (exact ContentId, ADR 0104): the payloads the official SendLayer Python SDK sends, as it
 * shapes them (Emails.send): sender and recipients given as plain strings
 * become `{"email": ...}` objects, lists even for one recipient, `ContentType`
 * "Text" with only `PlainContent`, `ReplyTo` a list, and each attachment with
 * `Disposition` "attachment" and `ContentId` = Python's hash(path), a signed
 * 64-bit integer written as a bare JSON number. Older SDK releases and the
 * docs' examples send the addresses as strings: both are here.
 */
const PDF = Buffer.from("%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n");
const HASH = "-4200931286474238466"; // beyond 2^53: JSON.parse alone would make it -4200931286474238500

describe("the official Python SDK's payloads", () => {
  let app: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    app = await startTestApp();
    apiKey = (await createTestAccount(app.ctx)).apiKey;
  });
  afterAll(async () => {
    await app?.stop();
  });

  async function send(text: string) {
    const res = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(apiKey), body: text });
    return { status: res.status, body: (await res.json()) as { MessageID?: string; Errors?: unknown } };
  }

  async function captured(messageId: string, recipient: string) {
    await waitForEvent(app.ctx, messageId, "delivered", recipient);
    const { rows } = await app.ctx.database.pool.query<{ raw: Buffer }>("SELECT raw FROM sandbox_messages WHERE mailroom_message_id = $1", [messageId]);
    expect(rows).toHaveLength(1);
    return rows[0]!.raw;
  }

  it("(a) a text-only send: sender and recipient objects with email only, a ReplyTo list, only PlainContent", async () => {
    const { status, body } = await send(
      JSON.stringify({
        From: { email: "sender@example.com" },
        To: [{ email: "ann@example.org" }],
        Subject: "Test Email",
        ContentType: "Text",
        PlainContent: "This is a test email",
        ReplyTo: [{ email: "replies@example.com" }],
      }),
    );
    expect(status, JSON.stringify(body)).toBe(200);
    const mail = await simpleParser(await captured(body.MessageID!, "ann@example.org"));
    expect(mail.from?.value[0]?.address).toBe("sender@example.com");
    expect(mail.replyTo?.value[0]?.address).toBe("replies@example.com");
    expect(mail.text?.trim()).toBe("This is a test email");
    expect(mail.html).toBe(false);
  });

  it("(a') the same with string addresses: a string From, a list of string To and ReplyTo", async () => {
    const { status, body } = await send(
      JSON.stringify({
        From: "sender@example.com",
        To: ["bob@example.org"],
        Subject: "Test Email",
        ContentType: "Text",
        PlainContent: "Plain only",
        ReplyTo: ["replies@example.com"], // a bare string is code 28 (docs/contract.md §5.6); the SDK always sends a list
      }),
    );
    expect(status, JSON.stringify(body)).toBe(200);
    const mail = await simpleParser(await captured(body.MessageID!, "bob@example.org"));
    expect(mail.replyTo?.value[0]?.address).toBe("replies@example.com");
    expect(mail.text?.trim()).toBe("Plain only");
  });

  it("(b) a PDF attachment with ContentId -4200931286474238466: 200, and the MIME part carries exactly that Content-ID", async () => {
    const text = JSON.stringify({
      From: { email: "sender@example.com", name: "Sender Name" },
      To: [{ email: "cid@example.org", name: "Recipient" }],
      Subject: "Invoice",
      ContentType: "HTML",
      HTMLContent: "<p>Your invoice is attached.</p>",
      PlainContent: "Your invoice is attached.",
      Attachments: [{ Content: PDF.toString("base64"), Type: "application/pdf", Filename: "invoice.pdf", Disposition: "attachment", ContentId: 0 }],
      Tags: ["invoice"],
    }).replace('"ContentId":0', `"ContentId":${HASH}`);
    expect(text).toContain(`"ContentId":${HASH}}`);
    const { status, body } = await send(text);
    expect(status, JSON.stringify(body)).toBe(200);
    const raw = await captured(body.MessageID!, "cid@example.org");
    expect(raw.toString("latin1")).toMatch(new RegExp(`^Content-ID: <${HASH}>\\r?$`, "m"));
    const mail = await simpleParser(raw);
    expect(mail.attachments).toHaveLength(1);
    expect(mail.attachments[0]!.filename).toBe("invoice.pdf");
    expect(mail.attachments[0]!.contentType).toBe("application/pdf");
    expect(mail.attachments[0]!.contentId).toBe(`<${HASH}>`);
    expect(Buffer.compare(mail.attachments[0]!.content, PDF)).toBe(0);
  });

  it("rejects a fractional ContentId with its Field", async () => {
    const text = JSON.stringify({
      From: "sender@example.com",
      To: ["dee@example.org"],
      Subject: "x",
      ContentType: "Text",
      PlainContent: "x",
      Attachments: [{ Content: PDF.toString("base64"), Type: "application/pdf", Filename: "a.pdf", ContentID: 0 }],
    }).replace('"ContentID":0', '"ContentID":12345678901234567890.5');
    const { status, body } = await send(text);
    expect(status, JSON.stringify(body)).toBe(422);
    expect(body.Errors).toEqual([expect.objectContaining({ Code: 422, Field: "Attachments[0].ContentID" })]);
  });
});
