import { randomBytes } from "node:crypto";
import { simpleParser } from "mailparser";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount } from "../support/fixtures";
import { eventsOf, expectNoRecipientLeftQueued, sendViaApi, waitForEvent } from "../support/delivery-helpers";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";
import { submissionEnv, verifyDkim } from "../support/submission";
import { startTestApp, type TestApp } from "../support/test-app";
import { registerWebhook, startReceiver, type Receiver } from "./webhooks-helpers";

/** SMTP submission with nodemailer over STARTTLS and implicit TLS, delivered through a real relay peer. */
describe("SMTP submission: nodemailer", () => {
  let relay: SmtpSink;
  let receiver: Receiver;
  let app: TestApp;
  let apiKey: string;
  let accountId: string;
  let ports: { port: number; tlsPort: number };
  beforeAll(async () => {
    relay = await startSmtpSink();
    const s = await submissionEnv();
    ports = s;
    app = await startTestApp({ MAILROOM_DELIVERY: "relay", SMTP_RELAY_URL: `smtp://127.0.0.1:${relay.port}`, ...s.env });
    ({ apiKey, accountId } = await createTestAccount(app.ctx));
    receiver = await startReceiver();
    await registerWebhook(app, apiKey, "delivery", `${receiver.url}/delivery`);
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
    await relay?.stop();
    await receiver?.close();
  });

  const transport = (secure: boolean) =>
    nodemailer.createTransport({
      host: "127.0.0.1",
      port: secure ? ports.tlsPort : ports.port,
      secure,
      requireTLS: !secure,
      auth: { user: "apikey", pass: apiKey },
      tls: { rejectUnauthorized: false }, // the self-signed certificate of the data directory
    });

  it("accepts HTML with an inline image and a PDF over STARTTLS: 250 with the MessageID, delivered intact, DKIM-signed, tracked", async () => {
    const pdf = randomBytes(50_000);
    const png = randomBytes(3000);
    const t = transport(false);
    const info = await t.sendMail({
      from: { name: "Shop Team", address: "shop@example.com" },
      to: [{ name: "Ann", address: "ann@example.org" }],
      cc: ["carol@example.org"],
      subject: "Facture n°42 — été",
      text: "Voir la facture — merci",
      html: '<html><body><p>Voir <a href="https://example.org/invoice/42">la facture</a> <img src="cid:logo@shop"></p></body></html>',
      headers: { "X-Order-Id": "42" },
      attachments: [
        { filename: "invoice.pdf", content: pdf, contentType: "application/pdf" },
        { filename: "logo.png", content: png, contentType: "image/png", cid: "logo@shop" },
      ],
    });
    t.close();
    const m = /^250 2\.0\.0 OK ([0-9a-f-]{36})$/.exec(info.response);
    expect(m, info.response).not.toBeNull();
    const id = m![1]!;
    for (const r of ["ann@example.org", "carol@example.org"]) await waitForEvent(app.ctx, id, "delivered", r);

    const { rows } = await app.ctx.database.pool.query("SELECT transport, subject, headers FROM messages WHERE id = $1", [id]);
    expect(rows[0]).toMatchObject({ transport: "smtp", subject: "Facture n°42 — été" });
    expect(rows[0].headers).toMatchObject({ MessageId: id, From: [["Shop Team", "shop@example.com"]], To: [["Ann", "ann@example.org"]], Cc: [["", "carol@example.org"]], Bcc: [] });

    const copies = relay.received.filter((c) => c.rcptTo.includes("ann@example.org") || c.rcptTo.includes("carol@example.org")).slice(-2);
    expect(copies.map((c) => c.rcptTo[0]).sort()).toEqual(["ann@example.org", "carol@example.org"]);
    for (const copy of copies) {
      expect(await verifyDkim(app.ctx, accountId, copy.raw)).toBe("pass");
      const text = copy.raw.toString("utf8");
      const head = text.slice(0, text.indexOf("\r\n\r\n")).replace(/\r\n[ \t]+/g, " "); // unfolded
      expect(head).toMatch(/^List-Unsubscribe: <http:\/\/localhost:\d+\/t\/u\/[^>]+>, <mailto:unsubscribe\+/m);
      expect(head).toMatch(/^X-Order-Id: 42$/im);
      expect(head).toContain(info.messageId); // the client's own Message-ID is kept
      const parsed = await simpleParser(copy.raw);
      expect(parsed.subject).toBe("Facture n°42 — été");
      expect(parsed.text?.trim()).toBe("Voir la facture — merci");
      expect(parsed.html).toContain("/t/o/"); // open pixel
      expect(parsed.html).toMatch(/href="http:\/\/localhost:\d+\/t\/c\//); // click tracking
      // The link list of a raw MIME message is kept before its copies go out (its HTML is not readable for the click route).
      const click = /href="http:\/\/localhost:\d+(\/t\/c\/[^"]+)"/.exec(parsed.html || "")![1]!;
      expect((await app.fetch(click, { redirect: "manual" })).headers.get("location")).toBe("https://example.org/invoice/42");
      expect(parsed.attachments.find((a) => a.filename === "invoice.pdf")!.content.equals(pdf)).toBe(true);
      const logo = parsed.attachments.find((a) => a.filename === "logo.png")!;
      expect(logo.contentId).toBe("<logo@shop>");
      expect(logo.content.equals(png)).toBe(true);
    }
  });

  it("accepts plain text over implicit TLS with Bcc-only recipients; no Bcc header reaches them; the same events as POST /email", async () => {
    const t = transport(true);
    const info = await t.sendMail({
      from: "shop@example.com",
      bcc: ["hidden1@example.org", "hidden2@example.net"],
      subject: "Bcc only",
      text: "Plain text body",
    });
    t.close();
    const id = /OK ([0-9a-f-]{36})$/.exec(info.response)![1]!;
    for (const r of ["hidden1@example.org", "hidden2@example.net"]) await waitForEvent(app.ctx, id, "delivered", r);
    const { rows } = await app.ctx.database.pool.query("SELECT kind FROM message_recipients WHERE message_id = $1", [id]);
    expect(rows.map((r) => r.kind)).toEqual(["bcc", "bcc"]);
    const copies = relay.received.filter((c) => c.rcptTo[0] === "hidden1@example.org" || c.rcptTo[0] === "hidden2@example.net");
    for (const c of copies) {
      expect(c.raw.toString("latin1")).not.toMatch(/^Bcc:/im);
      expect(await verifyDkim(app.ctx, accountId, c.raw)).toBe("pass");
    }

    const apiId = await sendViaApi(app, apiKey, { From: { email: "shop@example.com" }, To: ["api@example.org"], BCC: ["hidden3@example.org"], Subject: "x", ContentType: "Text", PlainContent: "x" });
    await waitForEvent(app.ctx, apiId, "delivered", "hidden3@example.org");
    await waitForEvent(app.ctx, apiId, "delivered", "api@example.org");
    const types = async (m: string) => (await eventsOf(app.ctx, m)).map((e) => e.type).sort();
    expect(await types(id)).toEqual(await types(apiId));

    // The same delivery notifications (webhook) as an API message's.
    type Note = { EventData: Record<string, unknown> };
    const notes = async (m: string, n: number) => {
      for (let i = 0; i < 150; i++) {
        const found = receiver.requests.map((r) => r.json as Note).filter((j) => j.EventData?.MessageID === m);
        if (found.length >= n) return found.map((j) => j.EventData);
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no ${n} notifications for ${m}`);
    };
    const smtpNotes = await notes(id, 2);
    const apiNotes = await notes(apiId, 2);
    expect(smtpNotes.map((e) => e.To).sort()).toEqual(["hidden1@example.org", "hidden2@example.net"]);
    const shape = (e: Record<string, unknown>) => ({ keys: Object.keys(e).sort(), Event: e.Event, Domain: e.Domain });
    expect(smtpNotes.map(shape)).toEqual(apiNotes.map(shape));
  });
});
