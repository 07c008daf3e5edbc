import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSentMessage, sentMessageOf } from "../../lib/domain/sending/sent-content";
import { purgePastRetention } from "../../lib/maintenance/retention-purge";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/** What was sent (docs/adr/0518): the content kept per message, read back as the message page shows it, until retention. */
describe("a message's content as sent", () => {
  let app: TestApp;
  let key: string;
  let accountId: string;
  let otherAccountId: string;
  let messageId: string;
  const html = '<html><body><p>Your receipt <b>#1042</b></p><a href="https://shop.example/r/1042">View it</a><img src="cid:logo"></body></html>';
  const logo = Buffer.from("GIF89a-not-really-a-gif").toString("base64");
  const pdf = Buffer.from("%PDF-1.4 receipt").toString("base64");

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    const a = await createTestAccount(app.ctx);
    key = a.apiKey;
    accountId = a.accountId;
    otherAccountId = (await createTestAccount(app.ctx, { name: "other", domain: "other.test" })).accountId;
    const res = await app.fetch("/api/v1/email", {
      method: "POST",
      headers: bearer(key),
      body: JSON.stringify({
        From: { name: "Shop", email: "shop@example.com" },
        To: [{ name: "Carol", email: "carol@example.net" }],
        ReplyTo: [{ email: "help@example.com" }],
        Subject: "Your receipt #1042",
        ContentType: "HTML",
        HTMLContent: html,
        PlainContent: "Your receipt #1042: https://shop.example/r/1042",
        Headers: { "X-Order": "1042" },
        Tags: ["receipts"],
        Attachments: [
          { Content: pdf, Filename: "receipt.pdf", Type: "application/pdf", Disposition: "attachment" },
          { Content: logo, Filename: "logo.gif", Type: "image/gif", Disposition: "inline", ContentId: "logo" },
        ],
      }),
    });
    expect(res.status).toBe(200);
    messageId = ((await res.json()) as { MessageID: string }).MessageID;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("reads back the HTML, the text, the headers and the parts that were accepted", async () => {
    const sent = await readSentMessage(app.ctx.database, accountId, messageId);
    expect(sent).toBeDefined();
    expect(sent!.transport).toBe("api");
    expect(sent!.html).toBe(html);
    expect(sent!.text).toBe("Your receipt #1042: https://shop.example/r/1042");
    const header = (name: string) => sent!.headers.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;
    expect(header("Subject")).toBe("Your receipt #1042");
    expect(header("From")).toBe("Shop <shop@example.com>");
    expect(header("To")).toBe("Carol <carol@example.net>");
    expect(header("Reply-To")).toBe("help@example.com");
    expect(header("Message-ID")).toBe(`<${messageId}@example.com>`);
    expect(header("X-Order")).toBe("1042");
    expect(header("X-Mailroom-Tags")).toBe("receipts");
    // The inline part goes first, in the HTML's multipart/related.
    expect(sent!.attachments.map((a) => [a.filename, a.contentType, a.disposition, a.contentId, a.contentBase64]).sort()).toEqual([
      ["logo.gif", "image/gif", "inline", "logo", logo],
      ["receipt.pdf", "application/pdf", "attachment", "", pdf],
    ]);
  });

  it("gives a raw RFC 5322 message that parses back to the same content, any case of the id", async () => {
    const sent = await sentMessageOf(app.ctx.database, accountId, messageId.toUpperCase());
    const parsed = await simpleParser(sent!.raw, { skipImageLinks: true });
    expect(parsed.subject).toBe("Your receipt #1042");
    expect(parsed.html).toBe(html);
    expect(parsed.attachments).toHaveLength(2);
  });

  it("keeps an SMTP submission's own bytes", async () => {
    const mime = "From: a@example.com\r\nTo: b@example.net\r\nSubject: By SMTP\r\nMessage-ID: <smtp-1@example.com>\r\n\r\nHello over SMTP\r\n";
    const pool = app.ctx.database.pool;
    const smtpId = "7d0c2c8e-5f1a-4c7e-9a43-0b6f0f3e2a11";
    await pool.query(
      `INSERT INTO messages (id, account_id, from_email, from_domain, subject, headers, content, transport)
       SELECT $1, account_id, from_email, from_domain, 'By SMTP', headers, jsonb_build_object('from', content->'from', 'subject', 'By SMTP', 'mime', $2::text), 'smtp'
         FROM messages WHERE id = $3`,
      [smtpId, Buffer.from(mime).toString("base64"), messageId],
    );
    const sent = await readSentMessage(app.ctx.database, accountId, smtpId);
    expect(sent!.transport).toBe("smtp");
    expect(sent!.raw.toString("utf8")).toBe(mime);
    expect(sent!.text).toBe("Hello over SMTP\n");
  });

  it("never reads another account's message, nor a malformed id", async () => {
    expect(await readSentMessage(app.ctx.database, otherAccountId, messageId)).toBeUndefined();
    expect(await sentMessageOf(app.ctx.database, otherAccountId, messageId)).toBeUndefined();
    for (const id of ["", "abc", "'; DROP TABLE messages; --", `${messageId}x`]) expect(await sentMessageOf(app.ctx.database, accountId, id), id).toBeUndefined();
  });

  it("is kept while its events are, and goes with them past the account's retention", async () => {
    const pool = app.ctx.database.pool;
    await pool.query("UPDATE message_recipients SET status = 'delivered' WHERE message_id = $1", [messageId]);
    // Within retention (30 days): the purge keeps it.
    await purgePastRetention(app.ctx, new Date(Date.now() + 10 * 86_400_000));
    expect(await sentMessageOf(app.ctx.database, accountId, messageId)).toBeDefined();
    // Past it: its events go, then the message and its content.
    await purgePastRetention(app.ctx, new Date(Date.now() + 40 * 86_400_000));
    expect(await sentMessageOf(app.ctx.database, accountId, messageId)).toBeUndefined();
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM messages WHERE id = $1", [messageId]);
    expect(rows[0].n).toBe(0);
  });
});
