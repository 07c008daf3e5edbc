import { randomBytes } from "node:crypto";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued, sendViaApi, waitForEvent } from "../support/delivery-helpers";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";
import { startTestApp, type TestApp } from "../support/test-app";

describe("relay delivery (SMTP_RELAY_URL) to a real SMTP server", () => {
  let relay: SmtpSink;
  let app: TestApp;
  let apiKey: string;
  let accountId: string;
  beforeAll(async () => {
    relay = await startSmtpSink({
      auth: { user: "relay-user", pass: "p@ss:word" },
      rcptReply: (a) => (a.startsWith("policy") ? [554, "5.7.1 Relay access denied"] : a.startsWith("later") ? [421, "4.3.2 Busy"] : undefined),
    });
    app = await startTestApp({
      MAILROOM_DELIVERY: "relay",
      SMTP_RELAY_URL: `smtp://relay-user:${encodeURIComponent("p@ss:word")}@127.0.0.1:${relay.port}`,
      MAILROOM_DELIVERY_RETRY_SCHEDULE: "300ms",
      MAILROOM_DELIVERY_MAX_AGE: "1s",
    });
    ({ apiKey, accountId } = await createTestAccount(app.ctx));
  });
  afterAll(async () => {
    // Every recipient this file accepted reached a final event (none left `queued`, none stranded).
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
    await relay?.stop();
  });

  it("sends To, CC and BCC as envelope recipients with the headers, attachments and a valid DKIM signature", async () => {
    const pdf = randomBytes(70_000);
    const png = randomBytes(2048);
    const id = await sendViaApi(app, apiKey, {
      From: { name: "Shop Team", email: "shop@example.com" },
      To: [{ name: "Ann", email: "ann@example.org" }, "Bob <bob@example.net>"],
      CC: [{ email: "carol@example.org" }],
      BCC: [{ name: "Dan", email: "dan@example.org" }],
      ReplyTo: [{ name: "Help", email: "help@example.com" }],
      Subject: "Invoice #42 — façade",
      ContentType: "HTML",
      HTMLContent: '<html><body><p>See <a href="https://example.org/invoice/42">invoice</a> <img src="cid:logo"></p></body></html>',
      PlainContent: "See the invoice",
      Tags: ["billing", "invoice"],
      Headers: { "X-Order-Id": "42", "X-Mailroom-Track": "none" },
      Attachments: [
        { Content: pdf.toString("base64"), Filename: "invoice.pdf", Type: "application/pdf" },
        { Content: png.toString("base64"), Filename: "logo.png", Type: "image/png", Disposition: "inline", ContentId: "logo" },
      ],
    });
    for (const r of ["ann@example.org", "bob@example.net", "carol@example.org", "dan@example.org"]) {
      const e = await waitForEvent(app.ctx, id, "delivered", r);
      expect(e.reason).toMatch(/^250 2\.0\.0 Ok: queued as sink-\d+$/);
    }
    const mails = relay.received.filter((m) => m.raw.toString().includes(`<${id}@example.com>`));
    expect(mails.flatMap((m) => m.rcptTo).sort()).toEqual(["ann@example.org", "bob@example.net", "carol@example.org", "dan@example.org"]);
    expect(mails.every((m) => m.user === "relay-user")).toBe(true);
    for (const m of mails) expect(m.mailFrom).toMatch(/^bounces\+[0-9a-z]+-[0-9a-f]{16}@bounces\.example\.com$/);

    const { rows } = await app.ctx.database.pool.query("SELECT dkim_public_key FROM sender_domains WHERE name = 'example.com' AND account_id = $1", [accountId]);
    const p = (rows[0].dkim_public_key as string).replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
    const resolver = async (name: string, type: string) => {
      if (type === "TXT" && name === "mailroom._domainkey.example.com") return [[`v=DKIM1; k=rsa; p=${p}`]];
      throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
    };

    for (const m of mails) {
      const text = m.raw.toString("utf8");
      const head = text.slice(0, text.indexOf("\r\n\r\n"));
      expect(head).toContain(`Message-ID: <${id}@example.com>`);
      expect(head).not.toMatch(/^Bcc:/im);
      expect(head).not.toContain("dan@example.org");
      expect(head).not.toMatch(/X-Mailroom-Track/i);
      expect(head).toMatch(/^X-Order-Id: 42$/im); // header names are case-insensitive; nodemailer normalises the case
      expect(head).toContain("X-Mailroom-Tags: billing, invoice");
      expect(head).toMatch(/^List-Unsubscribe: <http:\/\/localhost:\d+\/t\/u\/[^>]+>, <mailto:unsubscribe\+[0-9a-z]+-[0-9a-f]{16}@bounces\.example\.com\?subject=unsubscribe>$/m);
      expect(head).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click");

      const parsed = await simpleParser(m.raw);
      expect(parsed.subject).toBe("Invoice #42 — façade");
      expect(parsed.from?.value[0]).toMatchObject({ name: "Shop Team", address: "shop@example.com" });
      expect(!Array.isArray(parsed.to) && parsed.to?.value.map((a) => a.address)).toEqual(["ann@example.org", "bob@example.net"]);
      expect(!Array.isArray(parsed.cc) && parsed.cc?.value.map((a) => a.address)).toEqual(["carol@example.org"]);
      expect(parsed.replyTo?.value[0]?.address).toBe("help@example.com");
      expect(parsed.text?.trim()).toBe("See the invoice");
      // X-Mailroom-Track: none → no pixel, links untouched.
      expect(parsed.html).toContain('href="https://example.org/invoice/42"');
      expect(parsed.html).not.toContain("/t/o/");
      const pdfPart = parsed.attachments.find((a) => a.filename === "invoice.pdf")!;
      expect(pdfPart.contentType).toBe("application/pdf");
      expect(pdfPart.content.equals(pdf)).toBe(true);
      const logo = parsed.attachments.find((a) => a.filename === "logo.png")!;
      expect(logo.contentId).toBe("<logo>");
      expect(logo.contentDisposition).toBe("inline");
      expect(logo.content.equals(png)).toBe(true);

      const dkim = await dkimVerify(m.raw, { resolver });
      expect(dkim.results[0]?.status.result).toBe("pass");
      expect(dkim.results[0]?.signingDomain).toBe("example.com");
      expect(head).toMatch(/c=relaxed\/relaxed/);
      expect(head).toMatch(/a=rsa-sha256/);
    }
  });

  it("delivers a large message intact: parsed and stored off the event loop, streamed in pieces, DKIM-valid", async () => {
    // 3 MB of request: parsed on a worker, stored and loaded through it, the attachment streamed to the
    // composer, the body hashed in slices and written to SMTP in 64 KB pieces (docs/adr/0310).
    const pdf = randomBytes(1_500_000);
    const png = randomBytes(200_000);
    const links = Array.from({ length: 600 }, (_, i) => `<p><a href="https://example.org/item/${i}?a=1&amp;b=2">Item ${i}</a> ${"détail ".repeat(150)}</p>`).join("\n");
    const html = `<html><body>${links}<img src="cid:-4200931286474238466"></body></html>`;
    const text = `Plain ${"ünïcödé text, ".repeat(40_000)}end`;
    // The ContentId as the Python SDK sends it: a JSON integer beyond 2^53, kept exactly.
    const body = JSON.stringify({
      From: { email: "shop@example.com" },
      To: ["big@example.org"],
      Subject: "Large",
      ContentType: "HTML",
      HTMLContent: html,
      PlainContent: text,
      Attachments: [
        { Content: pdf.toString("base64"), Filename: "big.pdf", Type: "application/pdf" },
        { Content: png.toString("base64"), Filename: "logo.png", Type: "image/png", Disposition: "inline", ContentId: "CID" },
      ],
    }).replace('"ContentId":"CID"', '"ContentId":-4200931286474238466');
    const res = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(apiKey), body });
    const id = ((await res.json()) as { MessageID: string }).MessageID;
    expect(res.status).toBe(200);
    await waitForEvent(app.ctx, id, "delivered", "big@example.org");
    const mail = relay.received.find((m) => m.raw.toString().includes(`<${id}@example.com>`))!;
    const parsed = await simpleParser(mail.raw);
    expect(parsed.text).toBe(text);
    expect(parsed.html).toContain("détail détail");
    expect((parsed.html as string).match(/href="http:\/\/localhost:\d+\/t\/c\//g)).toHaveLength(600);
    expect(parsed.attachments.find((a) => a.filename === "big.pdf")!.content.equals(pdf)).toBe(true);
    const logo = parsed.attachments.find((a) => a.filename === "logo.png")!;
    expect(logo.contentId).toBe("<-4200931286474238466>");
    expect(logo.content.equals(png)).toBe(true);

    const { rows } = await app.ctx.database.pool.query("SELECT dkim_public_key FROM sender_domains WHERE name = 'example.com' AND account_id = $1", [accountId]);
    const p = (rows[0].dkim_public_key as string).replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
    const resolver = async (name: string, type: string) => {
      if (type === "TXT" && name === "mailroom._domainkey.example.com") return [[`v=DKIM1; k=rsa; p=${p}`]];
      throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
    };
    expect((await dkimVerify(mail.raw, { resolver })).results[0]?.status.result).toBe("pass");
  }, 60_000);

  it("turns the relay's answers into rejected and (after retries) failed", async () => {
    const id = await sendViaApi(app, apiKey, {
      From: { email: "shop@example.com" },
      To: ["policy@example.org"],
      Subject: "x",
      ContentType: "Text",
      PlainContent: "x",
    });
    const rejected = await waitForEvent(app.ctx, id, "rejected", "policy@example.org");
    expect(rejected.reason).toBe("554 5.7.1 Relay access denied");
    const id2 = await sendViaApi(app, apiKey, {
      From: { email: "shop@example.com" },
      To: ["later@example.org"],
      Subject: "x",
      ContentType: "Text",
      PlainContent: "x",
    });
    const failed = await waitForEvent(app.ctx, id2, "failed", "later@example.org");
    expect(failed.reason).toMatch(/gave up after \d+ attempts: 421 4\.3\.2 Busy/);
  });
});

describe("relay over implicit TLS (smtps://)", () => {
  let relay: SmtpSink;
  let app: TestApp;
  beforeAll(async () => {
    relay = await startSmtpSink({ secure: true, auth: { user: "u", pass: "p" } });
    app = await startTestApp({ MAILROOM_DELIVERY: "relay", SMTP_RELAY_URL: `smtps://u:p@127.0.0.1:${relay.port}` });
  });
  afterAll(async () => {
    // Every recipient this file accepted reached a final event (none left `queued`, none stranded).
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
    await relay?.stop();
  });

  it("delivers through an smtps:// relay with authentication", async () => {
    const { apiKey } = await createTestAccount(app.ctx);
    const id = await sendViaApi(app, apiKey, { From: { email: "shop@example.com" }, To: ["tls@example.org"], Subject: "tls", ContentType: "Text", PlainContent: "x" });
    await waitForEvent(app.ctx, id, "delivered", "tls@example.org");
    const mail = relay.received.find((m) => m.rcptTo.includes("tls@example.org"))!;
    expect(mail.secure).toBe(true);
    expect(mail.user).toBe("u");
  });
});
