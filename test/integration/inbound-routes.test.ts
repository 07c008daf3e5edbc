import { execFile } from "node:child_process";
import net from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { promisify } from "node:util";
import nodemailer from "nodemailer";
import MailComposer from "nodemailer/lib/mail-composer";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../../lib/domain/accounts/accounts";
import { getInboundAddress } from "../../lib/inbound/inbound-server";
import { sendViaApi, simpleEmail } from "../support/delivery-helpers";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { sleep, startReceiver, until, type Received, type Receiver } from "./webhooks-helpers";

/**
 * Inbound routes end to end (docs/contract.md §13): real SMTP clients
 * (nodemailer, swaks) to the inbound port, a real HTTP receiver on loopback
 * that verifies the Standard Webhooks signature with the `standardwebhooks`
 * package, the API of routes and messages, and SPF/DKIM/DMARC computed by
 * mailauth against a fake DNS (internet DNS is outside the tests).
 */

const execFileAsync = promisify(execFile);

/** DNS of the sending domains: `sender.example` allows loopback (SPF), DMARC p=none; `strict.example` allows nothing, DMARC p=reject. */
async function fakeDns(name: string, rrtype: string): Promise<string[][]> {
  if (rrtype === "TXT" && name === "sender.example") return [["v=spf1 ip4:127.0.0.1 ip6:::1 -all"]];
  if (rrtype === "TXT" && name === "_dmarc.sender.example") return [["v=DMARC1; p=none"]];
  if (rrtype === "TXT" && name === "strict.example") return [["v=spf1 -all"]];
  if (rrtype === "TXT" && name === "_dmarc.strict.example") return [["v=DMARC1; p=reject"]];
  throw Object.assign(new Error(`no ${rrtype} for ${name}`), { code: "ENOTFOUND" });
}

interface InboundJson {
  From: string;
  FromName: string;
  FromFull: { Email: string; Name: string; MailboxHash: string };
  To: string;
  ToFull: { Email: string; Name: string; MailboxHash: string }[];
  OriginalRecipient: string;
  Subject: string;
  MessageID: string;
  MailboxHash: string;
  TextBody: string;
  HtmlBody: string;
  StrippedTextReply: string;
  Headers: { Name: string; Value: string }[];
  Attachments: { Name: string; Content: string; ContentType: string; ContentLength: number; ContentID: string; DownloadURL?: string }[];
  RepliedToMessageID: string | null;
  Authentication: { SPF: string; DKIM: string; DMARC: string };
}

describe("inbound routes: receive, store, post", () => {
  let app: TestApp;
  let inbound: { host: string; port: number };
  let a: CreatedAccount;
  let b: CreatedAccount;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    app = await startTestApp(
      {
        MAILROOM_WEBHOOK_RETRY_SCHEDULE: "1s,1s,1s",
        MAILROOM_WEBHOOK_TIMEOUT: "3s",
        MAILROOM_INBOUND_MAX_MESSAGE_BYTES: String(3 * 1024 * 1024),
        MAILROOM_INBOUND_INLINE_BYTES: "50000",
        MAILROOM_INBOUND_CONNECTIONS_PER_MINUTE: "10000",
      },
      { workers: { inboundPost: { authResolver: fakeDns } } },
    );
    inbound = getInboundAddress(app.ctx)!;
    a = await createTestAccount(app.ctx, { name: "Inbound A", domain: "a-mail.example" });
    b = await createTestAccount(app.ctx, { name: "Inbound B", domain: "b-mail.example" });
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    for (const r of receivers) await r.close();
  });

  async function receiver(): Promise<Receiver> {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }

  async function addRoute(key: string, Match: string, WebhookURL: string) {
    const res = await app.fetch("/api/v1/inbound/routes", { method: "POST", headers: bearer(key), body: JSON.stringify({ Match, WebhookURL }) });
    return { status: res.status, json: (await res.json()) as { RouteID?: number; Errors?: { Code: number; Field?: string }[] } };
  }

  function smtp() {
    return nodemailer.createTransport({ host: inbound.host, port: inbound.port, secure: false, ignoreTLS: true, connectionTimeout: 10_000 });
  }

  /** The signed POST, verified with the account's signing key by the standardwebhooks package. */
  function verified(req: Received, account: CreatedAccount): InboundJson {
    const payload = new Webhook(account.webhookSigningKey).verify(req.body, req.headers) as InboundJson;
    expect(req.headers["webhook-id"]).toBe(`msg_mailroom_inbound_${payload.MessageID}`);
    return payload;
  }

  const countStored = async () => Number((await app.ctx.database.pool.query("SELECT count(*) AS n FROM inbound_messages")).rows[0].n);

  async function api<T>(key: string, path: string, init: RequestInit = {}): Promise<{ status: number; json: T }> {
    const res = await app.fetch(path, { ...init, headers: bearer(key) });
    return { status: res.status, json: (await res.json()) as T };
  }

  it("creates, lists and deletes routes; the domain must be the account's verified one (32); another account's route is 404", async () => {
    const r = await receiver();
    const exact = await addRoute(a.apiKey, "Routes@A-Mail.example", `${r.url}/in`);
    expect(exact.status).toBe(200);
    expect(exact.json.RouteID).toBeGreaterThan(0);
    const foreign = await addRoute(a.apiKey, "*@b-mail.example", `${r.url}/in`);
    expect(foreign.status).toBe(403);
    expect(foreign.json.Errors![0]).toMatchObject({ Code: 32, Field: "Match" });
    expect((await addRoute(a.apiKey, "not an address", `${r.url}/in`)).json.Errors![0]).toMatchObject({ Code: 422, Field: "Match" });
    expect((await addRoute(a.apiKey, "x@a-mail.example", "ftp://example.org/")).status).toBe(422);
    expect((await addRoute(a.apiKey, "routes@a-mail.example", `${r.url}/other`)).json.Errors![0]).toMatchObject({ Code: 422, Field: "Match" });

    const list = await api<{ Routes: { RouteID: number; Match: string; WebhookURL: string; CreatedAt: string }[] }>(a.apiKey, "/api/v1/inbound/routes");
    expect(list.json.Routes).toEqual([{ RouteID: exact.json.RouteID, Match: "routes@a-mail.example", WebhookURL: `${r.url}/in`, CreatedAt: expect.any(String) }]);
    expect((await api(b.apiKey, "/api/v1/inbound/routes")).json).toEqual({ Routes: [] });
    expect((await api(b.apiKey, `/api/v1/inbound/routes/${exact.json.RouteID}`, { method: "DELETE" })).status).toBe(404);
    expect((await api(a.apiKey, `/api/v1/inbound/routes/${exact.json.RouteID}`, { method: "DELETE" })).status).toBe(200);
    expect((await api(a.apiKey, `/api/v1/inbound/routes/${exact.json.RouteID}`, { method: "DELETE" })).status).toBe(404);
  });

  it("posts a text message with a +tag and RFC 2047 names, signed, with SPF/DMARC verdicts; the API shows it delivered", async () => {
    const r = await receiver();
    expect((await addRoute(a.apiKey, "support@a-mail.example", `${r.url}/support`)).status).toBe(200);
    const t = smtp();
    await t.sendMail({
      envelope: { from: "zoe@sender.example", to: ["support+ticket-7@a-mail.example"] },
      from: { name: "Zoë Ünicode", address: "zoe@sender.example" },
      to: "Support Désk <support+ticket-7@a-mail.example>",
      subject: "Ça marche? ✓",
      text: "Yes, thanks — it works.\n\nZoë\n\nOn Mon, 2 Mar 2026 at 10:00, Support <support@a-mail.example> wrote:\n> Did it work?\n",
      headers: { "X-Tag": "support" },
    });
    t.close();
    const [req] = await r.waitFor(1);
    const p = verified(req!, a);
    expect(p).toMatchObject({
      From: "zoe@sender.example",
      FromName: "Zoë Ünicode",
      FromFull: { Email: "zoe@sender.example", Name: "Zoë Ünicode", MailboxHash: "" },
      ToFull: [{ Email: "support+ticket-7@a-mail.example", Name: "Support Désk", MailboxHash: "ticket-7" }],
      OriginalRecipient: "support+ticket-7@a-mail.example",
      Subject: "Ça marche? ✓",
      MailboxHash: "ticket-7",
      StrippedTextReply: "Yes, thanks — it works.\n\nZoë",
      Tag: "support",
      RepliedToMessageID: null,
      // SPF passes for the MAIL FROM domain, which is also the From domain: DMARC passes by SPF alignment.
      Authentication: { SPF: "pass", DKIM: "none", DMARC: "pass" },
      Attachments: [],
    });
    expect(p.TextBody).toContain("> Did it work?");
    expect(p.Headers.find((h) => h.Name === "Subject")!.Value).toMatch(/=\?UTF-8\?/i);

    const detail = await until(
      () => api<{ Status: string; DeliveryAttempts: { ResponseCode: number }[]; Subject: string }>(a.apiKey, `/api/v1/inbound/messages/${p.MessageID}`),
      (d) => d.json.Status === "delivered",
    );
    expect(detail.json).toMatchObject({ Subject: "Ça marche? ✓", MailboxHash: "ticket-7", DeliveryAttempts: [{ ResponseCode: 200 }] });
    // Every member of the posted JSON, as posted, then the status members.
    const { Status, ReceivedAt, ExpiresAt, RouteID, WebhookURL, DeliveryAttempts, ...asPosted } = detail.json as unknown as Record<string, unknown>;
    expect(asPosted).toEqual(p);
    expect({ Status, RouteID, WebhookURL, attempts: (DeliveryAttempts as unknown[]).length }).toEqual({ Status: "delivered", RouteID: expect.any(Number), WebhookURL: expect.stringMatching(/^http/), attempts: 1 });
    expect(Date.parse(ReceivedAt as string)).toBeLessThan(Date.parse(ExpiresAt as string));
    const raw = await app.fetch(`/api/v1/inbound/messages/${p.MessageID}/raw`, { headers: bearer(a.apiKey) });
    expect(raw.headers.get("content-type")).toBe("message/rfc822");
    expect(await raw.text()).toContain("Did it work?");
    const list = await api<{ TotalRecords: number; InboundMessages: { MessageID: string; Status: string }[] }>(
      a.apiKey,
      "/api/v1/inbound/messages?Recipient=support%2Bticket-7@a-mail.example&Status=delivered",
    );
    expect(list.json.TotalRecords).toBe(1);
    expect(list.json.InboundMessages[0]).toMatchObject({ MessageID: p.MessageID, Status: "delivered" });

    // Account isolation: B sees none of it.
    for (const path of [`/api/v1/inbound/messages/${p.MessageID}`, `/api/v1/inbound/messages/${p.MessageID}/raw`]) {
      expect((await app.fetch(path, { headers: bearer(b.apiKey) })).status).toBe(404);
    }
    expect((await app.fetch(`/api/v1/inbound/messages/${p.MessageID}/retry`, { method: "POST", headers: bearer(b.apiKey) })).status).toBe(404);
    expect((await api<{ TotalRecords: number }>(b.apiKey, "/api/v1/inbound/messages")).json.TotalRecords).toBe(0);
    expect((await app.fetch("/api/v1/inbound/messages/not-a-uuid", { headers: bearer(a.apiKey) })).status).toBe(422);

    // Replay: posted again now, same webhook-id.
    expect((await app.fetch(`/api/v1/inbound/messages/${p.MessageID}/retry`, { method: "POST", headers: bearer(a.apiKey) })).status).toBe(200);
    const [, again] = await r.waitFor(2);
    expect(again!.headers["webhook-id"]).toBe(req!.headers["webhook-id"]);
    expect(verified(again!, a).MessageID).toBe(p.MessageID);
  });

  it("posts HTML with an inline image and a PDF; a large attachment comes as a signed download URL", async () => {
    const r = await receiver();
    expect((await addRoute(a.apiKey, "*@a-mail.example", `${r.url}/all`)).status).toBe(200);
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d1e0b60000000049454e44ae426082", "hex");
    const pdf = Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.alloc(1000, 0x41), Buffer.from("\n%%EOF\n")]);
    const big = Buffer.alloc(120_000, 0x42);
    const t = smtp();
    await t.sendMail({
      from: "Ann <ann@sender.example>",
      to: "orders@a-mail.example",
      subject: "Invoice",
      text: "See attached",
      html: '<p>Logo: <img src="cid:logo@sender.example"></p>',
      attachments: [
        { filename: "logo.png", content: png, cid: "logo@sender.example", contentType: "image/png" },
        { filename: "invoice.pdf", content: pdf, contentType: "application/pdf" },
        { filename: "big.bin", content: big, contentType: "application/octet-stream" },
      ],
    });
    t.close();
    const p = verified((await r.waitFor(1))[0]!, a);
    expect(p.OriginalRecipient).toBe("orders@a-mail.example");
    expect(p.HtmlBody).toContain('src="cid:logo@sender.example"');
    const byName = Object.fromEntries(p.Attachments.map((x) => [x.Name, x]));
    expect(byName["logo.png"]).toMatchObject({ ContentType: "image/png", ContentID: "logo@sender.example", ContentLength: png.length, Content: png.toString("base64") });
    expect(byName["invoice.pdf"]).toMatchObject({ ContentType: "application/pdf", ContentLength: pdf.length, Content: pdf.toString("base64") });
    expect(byName["big.bin"]).toMatchObject({ Content: "", ContentLength: big.length });
    const url = new URL(byName["big.bin"]!.DownloadURL!);
    const dl = await app.fetch(url.pathname);
    expect(dl.status).toBe(200);
    expect(Buffer.from(await dl.arrayBuffer()).equals(big)).toBe(true);
    const forged = url.pathname.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    expect((await app.fetch(forged)).status).toBe(404);
    // One URL fetched 100 times at once: each download parses the message, so 2 run and 8 wait; the rest are 503 (docs/adr/0807).
    const burst = await Promise.all(
      Array.from({ length: 100 }, async () => {
        const res = await app.fetch(url.pathname);
        const body = Buffer.from(await res.arrayBuffer());
        return { status: res.status, whole: body.equals(big), retryAfter: res.headers.get("retry-after") };
      }),
    );
    expect(burst.filter((b) => b.status === 200).every((b) => b.whole)).toBe(true);
    const busy = burst.filter((b) => b.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy.every((b) => b.retryAfter === "1")).toBe(true);
    expect(busy.length + burst.filter((b) => b.status === 200).length).toBe(100);
  });

  it("posts an HTML-only message with its text read from the HTML, however deep the nesting: 300,000 nested <div>s promptly, with no stall", async () => {
    const r = await receiver();
    expect((await addRoute(a.apiKey, "deep@a-mail.example", `${r.url}/deep`)).status).toBe(200);
    const deep = `${"<div>".repeat(300_000)}Deep &amp; down`; // 1.5 MB: mailparser's own conversion ran for minutes and then failed
    // Composed before the measurement: the client shares this process, and its quoted-printable encoding is not ours to measure.
    const raw = await new MailComposer({ from: "Ann <ann@sender.example>", to: "deep@a-mail.example", subject: "Nested", html: `<style>p{}</style><h1>Hello</h1><p>Line one<br>Line two</p>${deep}` })
      .compile()
      .build();
    const t = smtp();
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    await t.sendMail({ envelope: { from: "ann@sender.example", to: ["deep@a-mail.example"] }, raw });
    const [req] = await r.waitFor(1, 30_000);
    h.disable();
    t.close();
    const p = verified(req!, a);
    expect(p.TextBody).toBe("Hello\n\nLine one\nLine two\n\nDeep & down");
    expect(p.HtmlBody.length).toBeGreaterThan(1_500_000);
    expect(h.max / 1e6).toBeLessThan(200);
  });

  it("links a reply to the Mailroom message it answers (In-Reply-To)", async () => {
    const r = await receiver();
    expect((await addRoute(a.apiKey, "replies@a-mail.example", `${r.url}/replies`)).status).toBe(200);
    const sent = await sendViaApi(app, a.apiKey, simpleEmail("customer@example.org", { From: { name: "Shop", email: "shop@a-mail.example" }, ReplyTo: [{ name: "", email: "replies@a-mail.example" }] }));
    const t = smtp();
    await t.sendMail({
      from: "customer@sender.example",
      to: "replies@a-mail.example",
      subject: "Re: Hello",
      text: "Got it.\n\n> Hi",
      inReplyTo: `<${sent}@a-mail.example>`,
      references: [`<${sent}@a-mail.example>`],
    });
    t.close();
    const p = verified((await r.waitFor(1))[0]!, a);
    expect(p.RepliedToMessageID).toBe(sent);
    expect(p.StrippedTextReply).toBe("Got it.");
  });

  it("refuses unknown recipients and another account's domain at RCPT (550 5.1.1), oversize (552): nothing stored", async () => {
    const before = await countStored();
    const t = smtp();
    await expect(t.sendMail({ from: "x@sender.example", to: "nobody@unrouted.example", subject: "s", text: "t" })).rejects.toMatchObject({ responseCode: 550 });
    await expect(t.sendMail({ from: "x@sender.example", to: "info@b-mail.example", subject: "s", text: "t" })).rejects.toMatchObject({ responseCode: 550 });
    await expect(
      t.sendMail({ from: "x@sender.example", to: "big@a-mail.example", subject: "s", text: "t", attachments: [{ filename: "x.bin", content: Buffer.alloc(3 * 1024 * 1024, 1) }] }),
    ).rejects.toMatchObject({ responseCode: 552 });
    t.close();
    // swaks, as the README shows it: the refusal names 5.1.1.
    const swaks = await execFileAsync("swaks", ["--server", inbound.host, "--port", String(inbound.port), "--to", "nobody@b-mail.example", "--from", "x@sender.example", "--quit-after", "RCPT"]).catch(
      (err: { stdout: string }) => err,
    );
    expect(swaks.stdout).toMatch(/550 5\.1\.1/);
    await sleep(300);
    expect(await countStored()).toBe(before);
  });

  it("refuses a NUL in HELO or MAIL FROM at the command (501), storing nothing of it, and stores the sessions beside it", async () => {
    const r = await receiver();
    expect((await addRoute(b.apiKey, "nul@b-mail.example", `${r.url}/nul`)).status).toBe(200);
    const before = await countStored();
    /** One SMTP session on a raw socket: each command's reply code, in order. */
    const session = (helo: string, from = "x@sender.example") =>
      new Promise<number[]>((resolve, reject) => {
        const socket = net.connect(inbound.port, inbound.host);
        const script = [`EHLO ${helo}`, `MAIL FROM:<${from}>`, "RCPT TO:<nul@b-mail.example>", "DATA", "Subject: nul\r\n\r\nhi\r\n.", "QUIT"];
        const codes: number[] = [];
        let buffered = "";
        socket.on("data", (d: Buffer) => {
          buffered += d.toString("latin1");
          for (let nl = buffered.indexOf("\r\n"); nl >= 0; nl = buffered.indexOf("\r\n")) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 2);
            if (line[3] === "-") continue; // a continued reply
            codes.push(Number(line.slice(0, 3)));
            const next = script[codes.length - 1];
            if (next !== undefined) socket.write(`${next}\r\n`);
          }
        });
        socket.on("close", () => resolve(codes));
        socket.on("error", reject);
      });
    const [badHelo, badFrom, ...good] = await Promise.all([
      session("bad\u0000helo.example"),
      session("bad.example", "x\u0000y@sender.example"),
      ...Array.from({ length: 6 }, () => session("good.example")),
    ]);
    expect(badHelo.slice(0, 2)).toEqual([220, 501]);
    expect(badFrom.slice(0, 3)).toEqual([220, 250, 501]);
    for (const codes of good) expect(codes).toEqual([220, 250, 250, 250, 354, 250, 221]);
    expect(await countStored()).toBe(before + 6);
    await r.waitFor(6);
  });

  it("takes at most 100 recipients per message (452 past it): one stored message per route, listing its recipients, one raw copy", async () => {
    const r = await receiver();
    expect((await addRoute(b.apiKey, "*@many.b-mail.example", `${r.url}/many`)).status).toBe(403); // a subdomain is another domain
    expect((await addRoute(b.apiKey, "*@b-mail.example", `${r.url}/many`)).status).toBe(200);
    const before = await countStored();
    const t = smtp();
    const to = Array.from({ length: 101 }, (_, i) => `r${i}@b-mail.example`);
    const info = await t.sendMail({ envelope: { from: "x@sender.example", to }, raw: "From: x@sender.example\r\nSubject: many\r\n\r\nhi\r\n" });
    expect(info.accepted).toHaveLength(100);
    expect(info.rejected).toEqual(["r100@b-mail.example"]);
    expect(await countStored()).toBe(before + 1);
    const [many] = await r.waitFor(1, 60_000);
    const p = verified(many!, b) as InboundJson & { OriginalRecipients: { Email: string; MailboxHash: string }[] };
    expect(p.OriginalRecipient).toBe("r0@b-mail.example");
    expect(p.OriginalRecipients).toEqual(to.slice(0, 100).map((Email) => ({ Email, MailboxHash: "" })));
    // Any of its recipients finds it in the list.
    expect((await api<{ TotalRecords: number }>(b.apiKey, "/api/v1/inbound/messages?Recipient=r57@b-mail.example")).json.TotalRecords).toBe(1);

    // Two routes (of two accounts) in one transaction: a message each, posted each, one raw copy that both read.
    const other = await receiver();
    expect((await addRoute(a.apiKey, "two@a-mail.example", `${other.url}/two`)).status).toBe(200);
    const both = await t.sendMail({ envelope: { from: "x@sender.example", to: ["two@a-mail.example", "s1@b-mail.example", "s2@b-mail.example"] }, raw: "From: x@sender.example\r\nSubject: both\r\n\r\nfor two routes\r\n" });
    t.close();
    expect(both.accepted).toHaveLength(3);
    const [toA] = await other.waitFor(1);
    const [, toB] = await r.waitFor(2);
    const pa = verified(toA!, a) as InboundJson & { OriginalRecipients: unknown[] };
    const pb = verified(toB!, b) as InboundJson & { OriginalRecipients: unknown[] };
    expect(pa.OriginalRecipients).toEqual([{ Email: "two@a-mail.example", MailboxHash: "" }]);
    expect(pb.OriginalRecipients).toEqual([{ Email: "s1@b-mail.example", MailboxHash: "" }, { Email: "s2@b-mail.example", MailboxHash: "" }]);
    const rows = await app.ctx.database.pool.query<{ raw_of: string | null; stored: number }>(
      "SELECT raw_of, octet_length(raw) AS stored FROM inbound_messages WHERE id = ANY($1::uuid[]) ORDER BY raw_of NULLS FIRST",
      [[pa.MessageID, pb.MessageID]],
    );
    expect(rows.rows.map((row) => row.stored > 0)).toEqual([true, false]);
    expect(rows.rows[1]!.raw_of).not.toBeNull();
    for (const [key, id] of [[a.apiKey, pa.MessageID], [b.apiKey, pb.MessageID]] as const) {
      const raw = await app.fetch(`/api/v1/inbound/messages/${id}/raw`, { headers: bearer(key) });
      expect(await raw.text()).toContain("for two routes");
    }
  }, 90_000);

  it("takes 8-bit UTF-8 from Python's smtplib, and broken base64 or an unknown charset without a crash", async () => {
    const r = await receiver();
    expect((await addRoute(a.apiKey, "python@a-mail.example", `${r.url}/py`)).status).toBe(200);
    const script = [
      "import smtplib, sys",
      "from email.message import EmailMessage",
      "m = EmailMessage()",
      "m['From'] = 'Jürgen Groß <jg@sender.example>'",
      "m['To'] = 'python@a-mail.example'",
      "m['Subject'] = 'Grüße aus Köln'",
      "m.set_content('Schöne Grüße — 日本語も大丈夫。', cte='8bit')",
      "with smtplib.SMTP(sys.argv[1], int(sys.argv[2])) as s:",
      "    s.send_message(m)",
    ].join("\n");
    await execFileAsync("python3", ["-c", script, inbound.host, String(inbound.port)]);
    const p = verified((await r.waitFor(1))[0]!, a);
    expect(p).toMatchObject({ FromName: "Jürgen Groß", Subject: "Grüße aus Köln" });
    expect(p.TextBody).toContain("Schöne Grüße — 日本語も大丈夫。");

    const t = smtp();
    const broken = [
      "From: x@sender.example",
      "To: python@a-mail.example",
      "Subject: broken",
      "MIME-Version: 1.0",
      'Content-Type: multipart/mixed; boundary="z"',
      "",
      "--z",
      "Content-Type: text/plain; charset=x-no-such-charset",
      "",
      "caf\xe9",
      "--z",
      "Content-Type: text/plain; charset=utf-8",
      "Content-Transfer-Encoding: base64",
      "",
      Buffer.from("nul:\u0000 lone:\ud800 end").toString("base64"),
      "--z",
      "Content-Type: application/octet-stream; name=bad.bin",
      "Content-Transfer-Encoding: base64",
      "",
      "!!!!not base64 at all ###",
      "--z--",
      "",
    ].join("\r\n");
    const info = await t.sendMail({ envelope: { from: "x@sender.example", to: ["python@a-mail.example"] }, raw: Buffer.from(broken, "latin1") });
    t.close();
    expect(info.response).toMatch(/^250/);
    const q = verified((await r.waitFor(2))[1]!, a);
    expect(q.Subject).toBe("broken");
    // JSON with a NUL or a lone surrogate cannot be stored as jsonb: each is posted as U+FFFD.
    expect(q.TextBody).toContain("nul:\ufffd lone:\ufffd end");
    expect(q.Attachments.map((x) => x.Name)).toContain("bad.bin");
  });

  it("accepts with swaks and posts it", async () => {
    const r = await receiver();
    expect((await addRoute(b.apiKey, "help@b-mail.example", `${r.url}/b`)).status).toBe(200);
    const out = await execFileAsync("swaks", [
      "--server", inbound.host, "--port", String(inbound.port),
      "--to", "help@b-mail.example", "--from", "bob@strict.example",
      "--header", "Subject: swaks test", "--body", "Hello from swaks",
    ]);
    expect(out.stdout).toMatch(/250 2\.0\.0/);
    const p = verified((await r.waitFor(1))[0]!, b);
    expect(p).toMatchObject({ Subject: "swaks test", OriginalRecipient: "help@b-mail.example", Authentication: { SPF: "fail", DKIM: "none", DMARC: "fail" } });
    expect(p.TextBody).toContain("Hello from swaks");
  });

  it("a message that cannot be made into its JSON ends `failed` with the reason after its retries, never pending for ever", async () => {
    const r = await receiver();
    expect((await addRoute(a.apiKey, "unbuildable@a-mail.example", `${r.url}/unbuildable`)).status).toBe(200);
    // Building this message's JSON fails for an internal reason (not an outage): the reply lookup its
    // In-Reply-To makes meets a column that is not there (class 42).
    const { pool } = app.ctx.database;
    await pool.query("ALTER TABLE messages RENAME COLUMN from_domain TO test_from_domain");
    try {
      const t = smtp();
      const raw = "From: x@sender.example\r\nSubject: unbuildable\r\nIn-Reply-To: <0b0e7c2a-5f0e-4c39-9d7e-3f1f5a9e2b11@a-mail.example>\r\n\r\nhi\r\n";
      const info = await t.sendMail({ envelope: { from: "x@sender.example", to: ["unbuildable@a-mail.example"] }, raw });
      t.close();
      expect(info.response).toMatch(/^250/);
      const { rows } = await until(
        () => pool.query<{ id: string; status: string; attempts: number }>("SELECT id, status, attempts FROM inbound_messages WHERE original_recipient = 'unbuildable@a-mail.example'"),
        (q) => q.rows[0]?.status === "failed",
        20_000,
      );
      expect(rows[0]!.attempts).toBe(4); // the first attempt and the three of the schedule (1s,1s,1s)
      const detail = await api<{ Status: string; DeliveryAttempts: { ResponseCode: number; Error: string | null }[] }>(a.apiKey, `/api/v1/inbound/messages/${rows[0]!.id}`);
      expect(detail.json.Status).toBe("failed");
      expect(detail.json.DeliveryAttempts).toHaveLength(4);
      for (const attempt of detail.json.DeliveryAttempts) expect(attempt).toMatchObject({ ResponseCode: 0, Error: expect.stringMatching(/^internal error: the message could not be made into its JSON \(.*from_domain/) });
      expect(r.requests).toHaveLength(0);
    } finally {
      await pool.query("ALTER TABLE messages RENAME COLUMN test_from_domain TO from_domain");
    }
  });

  it("a posted message whose JSON the database refuses is delivered once, its attempt saying so (no payload kept)", async () => {
    const r = await receiver();
    expect((await addRoute(a.apiKey, "unstorable@a-mail.example", `${r.url}/unstorable`)).status).toBe(200);
    // The database refuses this one message's JSON (a check violation, class 23): what a payload jsonb cannot hold would do.
    const { pool } = app.ctx.database;
    await pool.query("ALTER TABLE inbound_messages ADD CONSTRAINT test_unstorable CHECK (payload_text IS NULL OR original_recipient <> 'unstorable@a-mail.example')");
    try {
      const t = smtp();
      const info = await t.sendMail({ envelope: { from: "x@sender.example", to: ["unstorable@a-mail.example"] }, raw: "From: x@sender.example\r\nSubject: unstorable\r\n\r\nhi\r\n" });
      t.close();
      expect(info.response).toMatch(/^250/);
      const { rows } = await until(
        () => pool.query<{ id: string; status: string; attempts: number }>("SELECT id, status, attempts FROM inbound_messages WHERE original_recipient = 'unstorable@a-mail.example'"),
        (q) => q.rows[0]?.status !== undefined && q.rows[0].status !== "pending",
        20_000,
      );
      expect(rows[0]).toMatchObject({ status: "delivered", attempts: 1 });
      expect(r.requests).toHaveLength(1);
      expect(JSON.parse(r.requests[0]!.body)).toMatchObject({ Subject: "unstorable", MessageID: rows[0]!.id });
      const detail = await api<{ Status: string; Subject?: string; DeliveryAttempts: { ResponseCode: number; Error: string | null }[] }>(a.apiKey, `/api/v1/inbound/messages/${rows[0]!.id}`);
      expect(detail.json.Status).toBe("delivered");
      expect(detail.json.Subject).toBeUndefined();
      expect(detail.json.DeliveryAttempts).toEqual([expect.objectContaining({ ResponseCode: 200, Error: expect.stringMatching(/^the posted JSON could not be stored \(.*test_unstorable/) })]);
    } finally {
      await pool.query("ALTER TABLE inbound_messages DROP CONSTRAINT test_unstorable");
    }
  });

  it("retries a 500 then delivers once on 200; a 406 stops", async () => {
    const r = await receiver();
    r.script.push({ status: 500, body: "down" }, { status: 200, body: "ok" });
    expect((await addRoute(b.apiKey, "flaky@b-mail.example", `${r.url}/flaky`)).status).toBe(200);
    const t = smtp();
    await t.sendMail({ from: "x@sender.example", to: "flaky@b-mail.example", subject: "retry me", text: "t" });
    const [first, second] = await r.waitFor(2);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(900);
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    // The retry posts the bytes of the first attempt, as stored with it (docs/adr/0046).
    expect(second!.body).toBe(first!.body);
    const id = verified(second!, b).MessageID;
    const detail = await until(
      () => api<{ Status: string; DeliveryAttempts: { ResponseCode: number; ResponseBody: string }[] }>(b.apiKey, `/api/v1/inbound/messages/${id}`),
      (d) => d.json.Status === "delivered",
    );
    expect(detail.json.DeliveryAttempts.map((x) => [x.ResponseCode, x.ResponseBody])).toEqual([
      [500, "down"],
      [200, "ok"],
    ]);

    const refusing = await receiver();
    refusing.fallback = () => ({ status: 406, body: "no thanks" });
    expect((await addRoute(b.apiKey, "refuse@b-mail.example", `${refusing.url}/no`)).status).toBe(200);
    await t.sendMail({ from: "x@sender.example", to: "refuse@b-mail.example", subject: "refused", text: "t" });
    t.close();
    const [only] = await refusing.waitFor(1);
    const rid = verified(only!, b).MessageID;
    await until(() => api<{ Status: string }>(b.apiKey, `/api/v1/inbound/messages/${rid}`), (d) => d.json.Status === "failed");
    // Failed is final (only pending posts are taken): 500 ms catch a second POST already in flight.
    await sleep(500);
    expect(refusing.requests).toHaveLength(1);
    const failed = await api<{ TotalRecords: number }>(b.apiKey, "/api/v1/inbound/messages?Status=failed");
    expect(failed.json.TotalRecords).toBe(1);
  }, 60_000);

  it("refuses hostile MIME (thousands of parts, deep nesting) with 554 5.6.0, nothing stored, no event-loop stall over 200 ms", async () => {
    const r = await receiver();
    expect((await addRoute(b.apiKey, "hostile@b-mail.example", `${r.url}/h`)).status).toBe(200);
    const manyParts = `From: x@sender.example\r\nTo: hostile@b-mail.example\r\nSubject: parts\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="x"\r\n\r\n${Array.from(
      { length: 5000 },
      (_, i) => `--x\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`,
    ).join("")}--x--\r\n`;
    let nested = "Content-Type: text/plain\r\n\r\nhi\r\n";
    for (let d = 200; d > 0; d--) nested = `Content-Type: multipart/mixed; boundary="b${d}"\r\n\r\n--b${d}\r\n${nested}--b${d}--\r\n`;
    const deep = `From: x@sender.example\r\nTo: hostile@b-mail.example\r\nSubject: deep\r\nMIME-Version: 1.0\r\n${nested}`;
    const before = await countStored();
    const t = smtp();
    const delays: number[] = [];
    for (const raw of [manyParts, deep]) {
      const h = monitorEventLoopDelay({ resolution: 10 });
      h.enable();
      await expect(t.sendMail({ envelope: { from: "x@sender.example", to: ["hostile@b-mail.example"] }, raw })).rejects.toMatchObject({ responseCode: 554, response: expect.stringMatching(/5\.6\.0/) });
      h.disable();
      delays.push(h.max / 1e6);
    }
    expect(Math.max(...delays), "event-loop delay while refusing hostile MIME (ms)").toBeLessThan(200);
    expect(await countStored()).toBe(before);
    expect(r.requests).toHaveLength(0);
    t.close();
  });
});
