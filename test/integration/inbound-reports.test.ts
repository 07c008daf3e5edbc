import net from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getInboundAddress, sendToInbound } from "../../lib/inbound/inbound-server";
import { createTestAccount } from "../support/fixtures";
import { eventsOf, sendViaApi, simpleEmail, waitFor, waitForEvent } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

/** A DSN as Postfix writes it (RFC 3464), returning the original headers. */
function dsn(o: { to: string; finalRecipient: string; status: string; diagnostic: string; originalHeaders: string }): Buffer {
  return Buffer.from(
    [
      "From: MAIL-DAEMON@mx.example.org (Mail Delivery System)",
      `To: ${o.to}`,
      "Subject: Undelivered Mail Returned to Sender",
      "Date: Mon, 2 Mar 2026 10:00:00 +0000",
      "Auto-Submitted: auto-replied",
      "MIME-Version: 1.0",
      'Content-Type: multipart/report; report-type=delivery-status;',
      '\tboundary="AB12CD34.1772445600/mx.example.org"',
      "Message-Id: <20260302100000.AB12CD34@mx.example.org>",
      "",
      "This is a MIME-encapsulated message.",
      "",
      "--AB12CD34.1772445600/mx.example.org",
      "Content-Description: Notification",
      "Content-Type: text/plain; charset=us-ascii",
      "",
      "I'm sorry to have to inform you that your message could not",
      "be delivered to one or more recipients.",
      "",
      "--AB12CD34.1772445600/mx.example.org",
      "Content-Description: Delivery report",
      "Content-Type: message/delivery-status",
      "",
      "Reporting-MTA: dns; mx.example.org",
      "X-Postfix-Queue-ID: AB12CD34",
      "Arrival-Date: Mon,  2 Mar 2026 09:59:59 +0000 (UTC)",
      "",
      `Final-Recipient: rfc822; ${o.finalRecipient}`,
      `Original-Recipient: rfc822;${o.finalRecipient}`,
      "Action: failed",
      `Status: ${o.status}`,
      "Remote-MTA: dns; mail.example.org",
      `Diagnostic-Code: smtp; ${o.diagnostic}`,
      "",
      "--AB12CD34.1772445600/mx.example.org",
      "Content-Description: Undelivered Message Headers",
      "Content-Type: text/rfc822-headers",
      "",
      o.originalHeaders,
      "",
      "--AB12CD34.1772445600/mx.example.org--",
      "",
    ].join("\r\n"),
  );
}

/** An ARF report as a mailbox provider's feedback loop sends it (RFC 5965). */
function arf(o: { to: string; rcpt: string; mailFrom: string; original: string }): Buffer {
  return Buffer.from(
    [
      "From: <feedbackloop@mailbox.example.org>",
      `To: <${o.to}>`,
      "Subject: Email Feedback Report for IP 192.0.2.10",
      "Date: Mon, 2 Mar 2026 11:00:00 +0000",
      "MIME-Version: 1.0",
      'Content-Type: multipart/report; report-type=feedback-report; boundary="----=_Part_1"',
      "",
      "------=_Part_1",
      "Content-Type: text/plain; charset=UTF-8",
      "",
      "This is an email abuse report for an email message received from IP 192.0.2.10.",
      "",
      "------=_Part_1",
      "Content-Type: message/feedback-report",
      "",
      "Feedback-Type: abuse",
      "User-Agent: ExampleFBL/0.1",
      "Version: 1",
      `Original-Mail-From: <${o.mailFrom}>`,
      `Original-Rcpt-To: <${o.rcpt}>`,
      "Source-IP: 192.0.2.10",
      "",
      "------=_Part_1",
      "Content-Type: message/rfc822",
      "Content-Disposition: inline",
      "",
      o.original,
      "------=_Part_1--",
      "",
    ].join("\r\n"),
  );
}

describe("inbound SMTP: DSN bounces, ARF complaints, mailto unsubscribes", () => {
  let app: TestApp;
  let apiKey: string;
  let inbound: { host: string; port: number };
  beforeAll(async () => {
    app = await startTestApp();
    apiKey = (await createTestAccount(app.ctx)).apiKey;
    inbound = getInboundAddress(app.ctx)!;
  });
  afterAll(async () => {
    await app?.stop();
  });

  async function copyOf(id: string, to: string) {
    await waitForEvent(app.ctx, id, "delivered", to);
    const row = await waitFor(`the sandbox copy of ${to}`, async () => {
      const { rows } = await app.ctx.database.pool.query(
        "SELECT mail_from, raw FROM sandbox_messages WHERE mailroom_message_id = $1 AND $2 = ANY(rcpt_to)",
        [id, to],
      );
      return rows[0] as { mail_from: string; raw: Buffer } | undefined;
    });
    const text = row.raw.toString("utf8");
    return { id, verp: row.mail_from, raw: text, headers: text.slice(0, text.indexOf("\r\n\r\n")) };
  }

  async function delivered(to: string) {
    return copyOf(await sendViaApi(app, apiKey, simpleEmail(to)), to);
  }

  async function stateOf(id: string, email: string) {
    const { rows } = await app.ctx.database.pool.query("SELECT status FROM message_recipients WHERE message_id = $1 AND email = $2", [id, email]);
    const sup = await app.ctx.database.pool.query("SELECT 1 FROM suppressions WHERE email = $1", [email]);
    const types = (await eventsOf(app.ctx, id)).filter((e) => e.recipient === email).map((e) => e.type);
    return { status: rows[0]?.status as string, suppressed: sup.rowCount! > 0, types };
  }

  it("turns a DSN sent to the VERP address into `failed` (once) and suppresses 5.1.x", async () => {
    const m = await delivered("gone@example.org");
    expect(m.verp).toMatch(/^bounces\+/);
    const report = dsn({ to: m.verp, finalRecipient: "gone@example.org", status: "5.1.1", diagnostic: "550 5.1.1 <gone@example.org>: Recipient address rejected: User unknown", originalHeaders: m.headers });
    expect(await sendToInbound(inbound, report, { from: "", to: m.verp })).toMatch(/^250/);
    const failed = await waitForEvent(app.ctx, m.id, "failed", "gone@example.org");
    expect(failed.reason).toBe("550 5.1.1 <gone@example.org>: Recipient address rejected: User unknown");
    expect(failed.details).toMatchObject({ smtpCode: 550, enhancedCode: "5.1.1", bounceType: "hard", source: "dsn", remoteMta: "mail.example.org" });
    await sendToInbound(inbound, report, { from: "", to: m.verp }); // the same DSN again
    await new Promise((r) => setTimeout(r, 200));
    expect((await eventsOf(app.ctx, m.id)).filter((e) => e.type === "failed")).toHaveLength(1);
    const { rows } = await app.ctx.database.pool.query("SELECT reason FROM suppressions WHERE email = 'gone@example.org'");
    expect(rows[0]?.reason).toBe("hard-bounce");
  });

  it("attributes a DSN sent elsewhere by the signed tokens in the returned headers (Return-Path, List-Unsubscribe)", async () => {
    const m = await delivered("full@example.org");
    expect(m.headers).toMatch(/^Return-Path: <bounces\+/m);
    expect(m.headers).toMatch(/<mailto:unsubscribe\+/);
    const report = dsn({ to: "postmaster@bounces.example.com", finalRecipient: "full@example.org", status: "5.2.2", diagnostic: "552 5.2.2 Mailbox full", originalHeaders: m.headers });
    await sendToInbound(inbound, report, { from: "", to: "postmaster@bounces.example.com" });
    const failed = await waitForEvent(app.ctx, m.id, "failed", "full@example.org");
    expect(failed.details).toMatchObject({ enhancedCode: "5.2.2" });
    const { rowCount } = await app.ctx.database.pool.query("SELECT 1 FROM suppressions WHERE email = 'full@example.org'");
    expect(rowCount).toBe(0); // not a 5.1.x bounce
  });

  it("turns an ARF report into `complained` and suppresses the address", async () => {
    const m = await delivered("annoyed@example.org");
    const report = arf({ to: "fbl@bounces.example.com", rcpt: "annoyed@example.org", mailFrom: m.verp, original: m.raw });
    await sendToInbound(inbound, report, { from: "feedbackloop@mailbox.example.org", to: "fbl@bounces.example.com" });
    const e = await waitForEvent(app.ctx, m.id, "complained", "annoyed@example.org");
    expect(e.reason).toContain("ExampleFBL/0.1");
    const { rows } = await app.ctx.database.pool.query("SELECT reason FROM suppressions WHERE email = 'annoyed@example.org'");
    expect(rows[0]?.reason).toBe("complaint");
  });

  it("unsubscribes through the List-Unsubscribe mailto address", async () => {
    const m = await delivered("mailto-unsub@example.org");
    const mailto = /<mailto:([^?>]+)\?subject=unsubscribe>/.exec(m.headers)![1]!;
    await sendToInbound(inbound, Buffer.from(`From: mailto-unsub@example.org\r\nTo: ${mailto}\r\nSubject: unsubscribe\r\n\r\n`), { from: "mailto-unsub@example.org", to: mailto });
    await waitForEvent(app.ctx, m.id, "unsubscribed", "mailto-unsub@example.org");
  });

  it("drops what it cannot attribute (forged VERP, ordinary mail, garbage) and keeps serving", async () => {
    const m = await delivered("keep@example.org");
    const forged = m.verp.replace(/-([0-9a-f])/, (_, c: string) => `-${c === "0" ? "1" : "0"}`);
    const fake = dsn({ to: forged, finalRecipient: "keep@example.org", status: "5.1.1", diagnostic: "550 5.1.1 no", originalHeaders: "Subject: nothing of ours" });
    expect(await sendToInbound(inbound, fake, { from: "", to: forged })).toMatch(/^250/);
    expect(await sendToInbound(inbound, Buffer.from("Subject: hello\r\n\r\nJust a note\r\n"), { from: "a@b.example", to: "info@bounces.example.com" })).toMatch(/^250/);
    // Raw protocol garbage on the socket.
    await new Promise<void>((resolve) => {
      const s = net.connect(inbound.port, inbound.host, () => {
        s.write("\u0000\u00ff\r\nEHLO x\r\nMAIL FROM:<<<>>>\r\nDATA\r\n.\r\nQUIT\r\n");
      });
      s.on("data", () => {});
      s.on("close", () => resolve());
      s.on("error", () => resolve());
      setTimeout(() => s.destroy(), 1000);
    });
    const again = dsn({ to: m.verp, finalRecipient: "keep@example.org", status: "5.1.1", diagnostic: "550 5.1.1 gone now", originalHeaders: m.headers });
    await sendToInbound(inbound, again, { from: "", to: m.verp });
    await waitForEvent(app.ctx, m.id, "failed", "keep@example.org");
    const types = (await eventsOf(app.ctx, m.id)).map((e) => e.type);
    expect(types).toEqual(["accepted", "delivered", "failed"]);
  });

  describe("forged reports: one copy must not fail or suppress another recipient", () => {
    let alice: Awaited<ReturnType<typeof copyOf>>;
    let bob: Awaited<ReturnType<typeof copyOf>>;
    const A = "alice-victimtest@example.org";
    const B = "bob-victimtest@example.org";
    beforeAll(async () => {
      const id = await sendViaApi(app, apiKey, simpleEmail([A, B]));
      alice = await copyOf(id, A);
      bob = await copyOf(id, B);
      expect(alice.verp).not.toBe(bob.verp);
    });

    const messageIdLine = (headers: string) => headers.split("\r\n").find((l) => /^Message-ID:/i.test(l))!;

    it("ignores a DSN that quotes a real Message-ID of the message but names bob (no token)", async () => {
      const warn = vi.spyOn(app.ctx.log, "warn");
      const forged = dsn({ to: "postmaster@bounces.example.com", finalRecipient: B, status: "5.1.1", diagnostic: "550 5.1.1 User unknown", originalHeaders: `${messageIdLine(alice.headers)}\r\nSubject: Hello` });
      expect(await sendToInbound(inbound, forged, { from: "", to: "postmaster@bounces.example.com" })).toMatch(/^250/);
      expect(await stateOf(bob.id, B)).toEqual({ status: "delivered", suppressed: false, types: ["accepted", "delivered"] });
      expect(warn.mock.calls.some(([o, msg]) => msg === "inbound report ignored" && /no signed VERP/.test((o as { reason: string }).reason))).toBe(true);
      warn.mockRestore();
    });

    it("ignores a DSN sent to alice's VERP address, or quoting alice's headers, that names bob", async () => {
      const toVerp = dsn({ to: alice.verp, finalRecipient: B, status: "5.1.1", diagnostic: "550 5.1.1 User unknown", originalHeaders: alice.headers });
      expect(await sendToInbound(inbound, toVerp, { from: "", to: alice.verp })).toMatch(/^250/);
      const quoting = dsn({ to: "postmaster@bounces.example.com", finalRecipient: B, status: "5.1.1", diagnostic: "550 5.1.1 User unknown", originalHeaders: alice.headers });
      expect(await sendToInbound(inbound, quoting, { from: "", to: "postmaster@bounces.example.com" })).toMatch(/^250/);
      // alice's VERP with bob's returned headers: tokens of two copies.
      const mixed = dsn({ to: alice.verp, finalRecipient: A, status: "5.1.1", diagnostic: "550 5.1.1 User unknown", originalHeaders: bob.headers });
      expect(await sendToInbound(inbound, mixed, { from: "", to: alice.verp })).toMatch(/^250/);
      expect(await stateOf(bob.id, B)).toEqual({ status: "delivered", suppressed: false, types: ["accepted", "delivered"] });
      expect(await stateOf(alice.id, A)).toEqual({ status: "delivered", suppressed: false, types: ["accepted", "delivered"] });
    });

    it("ignores ARF complaints about bob carried by alice's copy or by a Message-ID alone", async () => {
      const viaVerp = arf({ to: alice.verp, rcpt: B, mailFrom: alice.verp, original: alice.raw });
      expect(await sendToInbound(inbound, viaVerp, { from: "fbl@mailbox.example.org", to: alice.verp })).toMatch(/^250/);
      const byMessageId = arf({ to: "fbl@bounces.example.com", rcpt: B, mailFrom: "someone@bounces.example.com", original: `${messageIdLine(alice.headers)}\r\nTo: ${B}\r\nSubject: Hello\r\n\r\nHi\r\n` });
      expect(await sendToInbound(inbound, byMessageId, { from: "fbl@mailbox.example.org", to: "fbl@bounces.example.com" })).toMatch(/^250/);
      expect(await stateOf(bob.id, B)).toEqual({ status: "delivered", suppressed: false, types: ["accepted", "delivered"] });
      expect(await stateOf(alice.id, A)).toEqual({ status: "delivered", suppressed: false, types: ["accepted", "delivered"] });
    });

    it("still takes genuine reports: bob's ARF through bob's VERP, alice's DSN naming her by Original-Recipient", async () => {
      const complaint = arf({ to: bob.verp, rcpt: B, mailFrom: bob.verp, original: bob.raw });
      await sendToInbound(inbound, complaint, { from: "fbl@mailbox.example.org", to: bob.verp });
      expect((await stateOf(bob.id, B)).types).toEqual(["accepted", "delivered", "complained"]);
      const forwarded = dsn({ to: alice.verp, finalRecipient: "alice@forwarded.example.net", status: "5.2.2", diagnostic: "552 5.2.2 Mailbox full", originalHeaders: alice.headers }).toString("latin1")
        .replace(`Original-Recipient: rfc822;alice@forwarded.example.net`, `Original-Recipient: rfc822;${A}`);
      await sendToInbound(inbound, Buffer.from(forwarded, "latin1"), { from: "", to: alice.verp });
      expect(await stateOf(alice.id, A)).toEqual({ status: "failed", suppressed: false, types: ["accepted", "delivered", "failed"] });
    });
  });
});
