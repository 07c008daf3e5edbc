import { dkimVerify } from "mailauth/lib/dkim/verify";
import { simpleParser } from "mailparser";
import nodemailer from "nodemailer";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../../lib/domain/accounts/accounts";
import { getInboundAddress } from "../../lib/inbound/inbound-server";
import { replyTag } from "../../lib/tracking/verp";
import { expectNoRecipientLeftQueued, sendViaApi, simpleEmail, waitForEvent } from "../support/delivery-helpers";
import { bearer, createTestAccount } from "../support/fixtures";
import { waitFor } from "../support/processes";
import { startTestApp, type TestApp } from "../support/test-app";
import { startReceiver, type Received, type Receiver } from "./webhooks-helpers";

/**
 * Per-message reply addresses (docs/contract.md §13.6, docs/adr/0804): a
 * message sent through POST /email whose Reply-To a route of the account
 * receives goes out (to the real sandbox MX) with a signed `+r-` Reply-To,
 * DKIM verified by mailauth; a reply over SMTP to that address without
 * In-Reply-To is posted to a real HTTP receiver with RepliedToMessageID.
 */

interface InboundJson {
  MessageID: string;
  MailboxHash: string;
  OriginalRecipient: string;
  RepliedToMessageID: string | null;
}

/** No DNS for the repliers' domains (SPF/DMARC are not what this file checks). */
async function noDns(name: string, rrtype: string): Promise<string[][]> {
  throw Object.assign(new Error(`no ${rrtype} for ${name}`), { code: "ENOTFOUND" });
}

describe("per-message reply addresses", () => {
  let app: TestApp;
  let inbound: { host: string; port: number };
  let a: CreatedAccount;
  let b: CreatedAccount;
  let receiver: Receiver;
  let received = 0;

  beforeAll(async () => {
    app = await startTestApp(
      { MAILROOM_WEBHOOK_RETRY_SCHEDULE: "1s,1s", MAILROOM_WEBHOOK_TIMEOUT: "3s", MAILROOM_INBOUND_CONNECTIONS_PER_MINUTE: "10000" },
      { workers: { inboundPost: { authResolver: noDns } } },
    );
    inbound = getInboundAddress(app.ctx)!;
    a = await createTestAccount(app.ctx, { name: "Replies A", domain: "a-mail.example" });
    b = await createTestAccount(app.ctx, { name: "Replies B", domain: "b-mail.example" });
    receiver = await startReceiver();
    const res = await app.fetch("/api/v1/inbound/routes", { method: "POST", headers: bearer(a.apiKey), body: JSON.stringify({ Match: "replies@a-mail.example", WebhookURL: `${receiver.url}/in` }) });
    expect(res.status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
    await receiver?.close();
  });

  /** The copy the sandbox MX captured for the message, once delivered. */
  async function capturedCopy(messageId: string, to: string): Promise<Buffer> {
    await waitForEvent(app.ctx, messageId, "delivered", to);
    const { rows } = await app.ctx.database.pool.query<{ raw: Buffer }>("SELECT raw FROM sandbox_messages WHERE mailroom_message_id = $1", [messageId]);
    expect(rows).toHaveLength(1);
    return rows[0]!.raw;
  }

  async function dkimResolver(account: CreatedAccount, domain: string) {
    const { rows } = await app.ctx.database.pool.query("SELECT dkim_public_key, dkim_selector FROM sender_domains WHERE name = $1 AND account_id = $2", [domain, account.accountId]);
    const p = (rows[0].dkim_public_key as string).replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
    const selector = rows[0].dkim_selector as string;
    return async (name: string, type: string) => {
      if (type === "TXT" && name === `${selector}._domainkey.${domain}`) return [[`v=DKIM1; k=rsa; p=${p}`]];
      throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
    };
  }

  /** A reply over SMTP to `to`, with no In-Reply-To or References; the JSON posted for it, signature verified. */
  async function reply(to: string, inReplyTo?: string): Promise<InboundJson> {
    const t = nodemailer.createTransport({ host: inbound.host, port: inbound.port, secure: false, ignoreTLS: true, connectionTimeout: 10_000 });
    await t.sendMail({ from: "customer@sender.example", to, subject: "Re: Hello", text: "Thanks!", ...(inReplyTo && { inReplyTo }) });
    t.close();
    received += 1;
    const req: Received = (await receiver.waitFor(received))[received - 1]!;
    const payload = new Webhook(a.webhookSigningKey).verify(req.body, req.headers) as InboundJson;
    expect(payload.OriginalRecipient).toBe(to);
    return payload;
  }

  it("sends a routed Reply-To as a signed reply address (DKIM passes); a reply to it without In-Reply-To names the message", async () => {
    const sent = await sendViaApi(app, a.apiKey, simpleEmail("customer@example.org", { From: { name: "Shop", email: "shop@a-mail.example" }, ReplyTo: [{ name: "Desk", email: "replies@a-mail.example" }] }));
    const raw = await capturedCopy(sent, "customer@example.org");
    const parsed = await simpleParser(raw);
    const replyTo = parsed.replyTo!.value[0]!;
    const tag = replyTag(await app.ctx.trackingSecret(), sent)!;
    expect(replyTo).toMatchObject({ name: "Desk", address: `replies+${tag}@a-mail.example` });
    const dkim = await dkimVerify(raw, { resolver: await dkimResolver(a, "a-mail.example") });
    expect(dkim.results[0]?.status.result).toBe("pass");
    expect(dkim.results[0]?.signingDomain).toBe("a-mail.example");

    const p = await reply(replyTo.address!);
    expect(p.RepliedToMessageID).toBe(sent);
    expect(p.MailboxHash).toBe(tag);
    // The API shows the link too, once the first attempt is recorded, moments after the POST the receiver
    // saw: the detail's JSON and the list's RepliedToMessageID are stored in that statement (docs/contract.md §13.5).
    const detail = await waitFor("the attempt recorded", async () => {
      const res = await app.fetch(`/api/v1/inbound/messages/${p.MessageID}`, { headers: bearer(a.apiKey) });
      const json = (await res.json()) as InboundJson & { Status: string };
      return json.Status === "delivered" ? json : undefined;
    });
    expect(detail.RepliedToMessageID).toBe(sent);
    const list = await app.fetch(`/api/v1/inbound/messages?Recipient=${encodeURIComponent(replyTo.address!)}`, { headers: bearer(a.apiKey) });
    const listed = ((await list.json()) as { InboundMessages: { MessageID: string; RepliedToMessageID: string | null }[] }).InboundMessages;
    expect(listed.find((m) => m.MessageID === p.MessageID)?.RepliedToMessageID).toBe(sent);
  });

  it("a From that a route receives gets a reply address when the message has no Reply-To", async () => {
    const sent = await sendViaApi(app, a.apiKey, simpleEmail("ann@example.org", { From: { name: "Replies", email: "replies@a-mail.example" } }));
    const parsed = await simpleParser(await capturedCopy(sent, "ann@example.org"));
    expect(parsed.from!.value[0]!.address).toBe("replies@a-mail.example");
    expect(parsed.replyTo!.value[0]).toMatchObject({ name: "Replies", address: `replies+${replyTag(await app.ctx.trackingSecret(), sent)}@a-mail.example` });
  });

  it("a forged token and another account's message in a validly signed token give null; the MailboxHash is reported as received", async () => {
    const secret = await app.ctx.trackingSecret();
    const own = await sendViaApi(app, a.apiKey, simpleEmail("bob@example.org", { From: { name: "", email: "shop@a-mail.example" } }));
    const good = replyTag(secret, own)!;
    const forged = good.slice(0, -1) + (good.endsWith("0") ? "1" : "0");
    const forgedReply = await reply(`replies+${forged}@a-mail.example`);
    expect(forgedReply.RepliedToMessageID).toBeNull();
    expect(forgedReply.MailboxHash).toBe(forged);

    const theirs = await sendViaApi(app, b.apiKey, simpleEmail("carol@example.org", { From: { name: "", email: "shop@b-mail.example" } }));
    const foreign = replyTag(secret, theirs)!;
    const foreignReply = await reply(`replies+${foreign}@a-mail.example`);
    expect(foreignReply.RepliedToMessageID).toBeNull();
    expect(foreignReply.MailboxHash).toBe(foreign);
  });

  it("In-Reply-To wins over the reply address when both name a message of the account", async () => {
    const secret = await app.ctx.trackingSecret();
    const first = await sendViaApi(app, a.apiKey, simpleEmail("fay@example.org", { From: { name: "", email: "shop@a-mail.example" } }));
    const second = await sendViaApi(app, a.apiKey, simpleEmail("gus@example.org", { From: { name: "", email: "shop@a-mail.example" } }));
    const p = await reply(`replies+${replyTag(secret, second)}@a-mail.example`, `<${first}@a-mail.example>`);
    expect(p.RepliedToMessageID).toBe(first);
  });

  it("a message whose Reply-To no route receives goes out unchanged", async () => {
    const sent = await sendViaApi(app, a.apiKey, simpleEmail("dan@example.org", { From: { name: "Shop", email: "shop@a-mail.example" }, ReplyTo: [{ name: "Desk", email: "desk@a-mail.example" }] }));
    const parsed = await simpleParser(await capturedCopy(sent, "dan@example.org"));
    expect(parsed.replyTo!.value).toEqual([{ name: "Desk", address: "desk@a-mail.example" }]);
    const plain = await sendViaApi(app, a.apiKey, simpleEmail("eve@example.org", { From: { name: "Shop", email: "shop@a-mail.example" } }));
    expect((await simpleParser(await capturedCopy(plain, "eve@example.org"))).replyTo).toBeUndefined();
  });
});
