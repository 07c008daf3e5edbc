import { simpleParser } from "mailparser";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued, waitForEvent } from "../support/delivery-helpers";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";
import { submissionEnv, verifyDkim } from "../support/submission";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The originator headers of an SMTP submission (docs/adr/0703), each case a
 * real nodemailer session over STARTTLS sending the message's own bytes
 * (`raw`) to the real submission server, delivered through a real relay peer.
 */
describe("SMTP submission: From, Sender, Resent-* and repeated single headers", () => {
  let relay: SmtpSink;
  let app: TestApp;
  let apiKey: string;
  let accountId: string;
  let port: number;
  beforeAll(async () => {
    relay = await startSmtpSink();
    const s = await submissionEnv();
    port = s.port;
    app = await startTestApp({ MAILROOM_DELIVERY: "relay", SMTP_RELAY_URL: `smtp://127.0.0.1:${relay.port}`, ...s.env });
    ({ apiKey, accountId } = await createTestAccount(app.ctx));
    // Another tenant's verified domain is still a foreign domain for this account.
    await createTestAccount(app.ctx, { name: "bank", domain: "other-bank.test" });
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
    await relay?.stop();
  });

  /** A raw message to `to`, envelope from shop@example.com: the reply text, 250 or the refusal. */
  const submit = async (head: string, to: string): Promise<string> => {
    const t = nodemailer.createTransport({ host: "127.0.0.1", port, requireTLS: true, auth: { user: "apikey", pass: apiKey }, tls: { rejectUnauthorized: false } });
    const raw = `${head.trim().replace(/\r?\n/g, "\r\n")}\r\nTo: ${to}\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Please wire the money today.</p>\r\n`;
    try {
      const info = await t.sendMail({ envelope: { from: "shop@example.com", to: [to] }, raw });
      return info.response;
    } catch (err) {
      return (err as { response?: string }).response ?? String(err);
    } finally {
      t.close();
    }
  };
  const messagesOfAccount = async () =>
    (await app.ctx.database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM messages WHERE account_id = $1", [accountId])).rows[0]!.n;
  /** The refusal of a message to a fresh recipient: nothing stored for the account, nothing relayed to it. */
  const refused = async (head: string) => {
    const before = await messagesOfAccount();
    const to = `r${Math.random().toString(36).slice(2)}@example.org`;
    const reply = await submit(head, to);
    expect(await messagesOfAccount(), head).toBe(before);
    // A message accepted by mistake would reach the relay within this wait.
    await new Promise((r) => setTimeout(r, 300));
    expect(relay.received.some((m) => m.rcptTo.includes(to)), head).toBe(false);
    return reply;
  };

  it("two From headers, a foreign one first and the verified one last: 554 5.6.0, nothing accepted", async () => {
    expect(await refused("From: CEO <ceo@other-bank.test>\nFrom: Shop <shop@example.com>\nSubject: Invoice")).toBe(
      "554 5.6.0 The message has 2 From headers: RFC 5322 allows one",
    );
    expect(await refused("From: Shop <shop@example.com>\nFrom: CEO <ceo@other-bank.test>\nSubject: Invoice")).toMatch(/^554 5\.6\.0 The message has 2 From headers/);
    // A second From behind a bare CR, which some readers take for a line break.
    expect(await refused("From: Shop <shop@example.com>\nSubject: Invoice\rFrom: CEO <ceo@other-bank.test>")).toBe(
      "554 5.6.0 The message header has a CR without LF: lines must end with CRLF",
    );
  });

  it("a repeated Sender, To, Subject, Date or Message-ID: 554 5.6.0 naming the header", async () => {
    const cases: [string, string][] = [
      ["Sender: shop@example.com\nSender: ceo@other-bank.test", "Sender"],
      ["To: ceo@other-bank.test", "To"],
      ["Subject: Invoice\nSubject: Urgent", "Subject"],
      ["Date: Tue, 1 Jan 2030 00:00:00 +0000\nDate: Wed, 2 Jan 2030 00:00:00 +0000", "Date"],
      ["Message-ID: <a@example.com>\nMessage-ID: <b@other-bank.test>", "Message-ID"],
      ["Reply-To: shop@example.com\nReply-To: ceo@other-bank.test", "Reply-To"],
    ];
    for (const [extra, name] of cases) {
      expect(await refused(`From: shop@example.com\n${extra}`)).toBe(`554 5.6.0 The message has 2 ${name} headers: RFC 5322 allows one`);
    }
  });

  it("a Sender, Resent-From or Resent-Sender outside the verified domains: 550 5.7.1 naming the header and the domain", async () => {
    expect(await refused("From: shop@example.com\nSender: CEO <ceo@other-bank.test>\nSubject: x")).toBe(
      "550 5.7.1 Sender domain other-bank.test of the Sender header is not a verified sender domain of this account",
    );
    expect(await refused("From: shop@example.com\nResent-From: shop@example.com, ceo@other-bank.test\nSubject: x")).toBe(
      "550 5.7.1 Sender domain other-bank.test of the Resent-From header is not a verified sender domain of this account",
    );
    expect(await refused("From: shop@example.com\nResent-Sender: x@unverified.test\nSubject: x")).toBe(
      "550 5.7.1 Sender domain unverified.test of the Resent-Sender header is not a verified sender domain of this account",
    );
    expect(await refused("From: shop@example.com\nSender: a@example.com, b@example.com\nSubject: x")).toMatch(/^550 5\.7\.1 The Sender header must hold exactly one address/);
  });

  it("a From naming any address outside the verified domains, or more than one: 550 5.7.1", async () => {
    expect(await refused("From: shop@example.com, ceo@other-bank.test\nSubject: x")).toMatch(/^550 5\.7\.1 The From header must hold exactly one address/);
    expect(await refused('From: "ceo@other-bank.test", shop@example.com\nSubject: x')).toMatch(/^550 5\.7\.1 The From header must hold exactly one address/);
    expect(await refused("From: Boss: ceo@other-bank.test;\nSubject: x")).toMatch(/^550 5\.7\.1 The From header must hold exactly one address/);
    expect(await refused("From: shop@example.com <ceo@other-bank.test>\nSubject: x")).toBe(
      "550 5.7.1 Sender domain other-bank.test is not a verified sender domain of this account",
    );
  });

  it("a normal message, with a verified Sender and Resent-From, is still 250 and delivered DKIM-signed with its one From", async () => {
    const reply = await submit(
      "From: Shop <shop@example.com>\nSender: Mailer <mailer@example.com>\nResent-From: desk@example.com\nSubject: Your invoice\nMessage-ID: <client-1@example.com>\nDate: Tue, 1 Jan 2030 00:00:00 +0000\nReceived: from a\nReceived: from b",
      "ann@example.org",
    );
    const id = /^250 2\.0\.0 OK ([0-9a-f-]{36})$/.exec(reply)?.[1];
    expect(id, reply).toBeDefined();
    await waitForEvent(app.ctx, id!, "delivered", "ann@example.org");
    const copy = relay.received.find((m) => m.rcptTo.includes("ann@example.org"))!;
    expect(await verifyDkim(app.ctx, accountId, copy.raw)).toBe("pass");
    const parsed = await simpleParser(copy.raw);
    expect(parsed.headerLines.filter((l) => l.key === "from")).toHaveLength(1);
    expect(parsed.from?.text).toBe('"Shop" <shop@example.com>');
    expect(parsed.messageId).toBe("<client-1@example.com>");
  });
});
