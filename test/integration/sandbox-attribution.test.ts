import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideAccess, type AccountAccess } from "../../lib/dashboard/decide";
import { listSandbox, readSandbox } from "../../lib/dashboard/sandbox";
import { accountsVisibleTo, addStaffUser } from "../../lib/domain/staff/staff-users";
import { migrate } from "../../lib/storage/migrate";
import { verpAddress } from "../../lib/tracking/verp";
import { createTestAccount } from "../support/fixtures";
import { sendViaApi, waitForEvent } from "../support/delivery-helpers";
import { freePort, submissionEnv } from "../support/submission";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Sandbox captures are filed by the signed VERP envelope sender, never by
 * the Message-ID header (docs/adr/0307): real SMTP submissions through the
 * real submission server, delivered to the real sandbox MX, read through
 * the dashboard's own area functions (lib/dashboard/sandbox.ts).
 */
describe("sandbox captures: filed by the signed envelope sender", () => {
  let app: TestApp;
  let submissionPort: number;
  let sandboxPort: number;
  let a: { apiKey: string; accountId: string };
  let b: { apiKey: string; accountId: string };
  let accessA: AccountAccess;
  let accessB: AccountAccess;

  beforeAll(async () => {
    const s = await submissionEnv();
    submissionPort = s.port;
    sandboxPort = await freePort();
    app = await startTestApp({ ...s.env, MAILROOM_DELIVERY: "sandbox", MAILROOM_SANDBOX_PORT: String(sandboxPort) });
    a = await createTestAccount(app.ctx, { name: "Tenant A" });
    b = await createTestAccount(app.ctx, { name: "Tenant B", domain: "tenant-b.test" });
    await addStaffUser(app.ctx.database, { email: "owner@staff.test", role: "admin", password: "password-1", owner: true, accountId: a.accountId });
    const visible = (await accountsVisibleTo(app.ctx.database, "owner@staff.test"))!;
    const user = { email: "owner@staff.test", name: "Owner", isOwner: true, mustChangePassword: false, accounts: visible.accounts };
    const access = (accountId: string) => {
      const d = decideAccess(user, accountId, "sandbox");
      if (!d.ok) throw new Error(d.error);
      return d.access;
    };
    accessA = access(a.accountId);
    accessB = access(b.accountId);
  });
  afterAll(async () => {
    await app?.stop();
  });

  const submitAsA = async (mail: nodemailer.SendMailOptions): Promise<string> => {
    const t = nodemailer.createTransport({ host: "127.0.0.1", port: submissionPort, requireTLS: true, auth: { user: "apikey", pass: a.apiKey }, tls: { rejectUnauthorized: false } });
    try {
      const info = await t.sendMail(mail);
      const id = /^250 2\.0\.0 OK ([0-9a-f-]{36})$/.exec(info.response)?.[1];
      if (!id) throw new Error(info.response);
      return id;
    } finally {
      t.close();
    }
  };

  it("a message sent over SMTP with the client's own Message-ID is in the sender account's Sandbox list", async () => {
    const id = await submitAsA({
      from: "Shop <shop@example.com>",
      to: "ann@example.org",
      subject: "Own Message-ID",
      html: "<p>Hello</p>",
      messageId: "<wp-1234.5678@example.com>",
    });
    await waitForEvent(app.ctx, id, "delivered", "ann@example.org");
    const list = await listSandbox(accessA, { limit: 50, offset: 0 });
    const item = list.items.find((i) => i.rcptTo.includes("ann@example.org"));
    expect(item, JSON.stringify(list)).toMatchObject({ messageId: id, messageIdHeader: "<wp-1234.5678@example.com>", subject: "Own Message-ID" });
    expect((await readSandbox(accessA, item!.id))?.html).toContain("<p>Hello</p>");
    expect((await listSandbox(accessB, { limit: 50, offset: 0 })).items.some((i) => i.messageId === id)).toBe(false);
  });

  it("tenant A reusing B's MessageID in its Message-ID header never lands in B's sandbox", async () => {
    const idB = await sendViaApi(app, b.apiKey, {
      From: { email: "news@tenant-b.test" },
      To: ["bob@example.org"],
      Subject: "B's own",
      ContentType: "HTML",
      HTMLContent: "<p>B</p>",
    });
    await waitForEvent(app.ctx, idB, "delivered", "bob@example.org");

    const planted = await submitAsA({
      from: "shop@example.com",
      to: "victim@example.org",
      subject: "Planted",
      html: '<p>Log in at <a href="https://evil.example/">your bank</a></p>',
      messageId: `<${idB}@tenant-b.test>`,
    });
    await waitForEvent(app.ctx, planted, "delivered", "victim@example.org");

    const inB = await listSandbox(accessB, { limit: 50, offset: 0 });
    expect(inB.items.map((i) => [i.messageId, i.rcptTo])).toEqual([[idB, ["bob@example.org"]]]);
    expect((await listSandbox(accessB, { search: idB, limit: 50, offset: 0 })).total).toBe(1);

    const inA = (await listSandbox(accessA, { limit: 50, offset: 0 })).items.find((i) => i.rcptTo.includes("victim@example.org"));
    expect(inA).toMatchObject({ messageId: planted, messageIdHeader: `<${idB}@tenant-b.test>` });
    expect(await readSandbox(accessB, inA!.id)).toBeUndefined();
  });

  it("migration 0790 files the captures of an older version again by their return path", async () => {
    const pool = app.ctx.database.pool;
    const rows = async () =>
      (await pool.query<{ id: string; mail_from: string; account_id: string | null; mailroom_message_id: string | null }>(
        "SELECT id::text, mail_from, account_id, mailroom_message_id FROM sandbox_messages ORDER BY id",
      )).rows;
    const filed = await rows();
    expect(filed.length).toBeGreaterThanOrEqual(3);
    expect(filed.every((r) => r.account_id !== null && r.mailroom_message_id !== null)).toBe(true);
    const [someB] = filed.filter((r) => r.account_id === b.accountId);
    // As the old code filed them: by the Message-ID header (planted in B, the client's own one in no account)...
    await pool.query("UPDATE sandbox_messages SET account_id = $1, mailroom_message_id = $2", [b.accountId, someB!.mailroom_message_id]);
    await pool.query("UPDATE sandbox_messages SET account_id = NULL, mailroom_message_id = NULL WHERE id = $1", [filed[0]!.id]);
    // ...plus captures whose return path is no VERP address, or names no stored recipient.
    const orphan = verpAddress("any", 9_999_999, "bounces.example.com");
    await pool.query(
      `INSERT INTO sandbox_messages (mail_from, rcpt_to, subject, size, raw, account_id, mailroom_message_id)
       VALUES ('shop@example.com', '{x@example.org}', 'old', 1, '\\x00', $1, $2), ($3, '{y@example.org}', 'old', 1, '\\x00', $1, $2)`,
      [b.accountId, someB!.mailroom_message_id, orphan.toUpperCase()],
    );
    await pool.query("DELETE FROM schema_migrations WHERE name = '0790_sandbox_captures_by_return_path.sql'");
    expect(await migrate(pool)).toEqual(["0790_sandbox_captures_by_return_path.sql"]);
    const after = await rows();
    expect(after.slice(0, filed.length)).toEqual(filed);
    expect(after.slice(filed.length).map((r) => [r.account_id, r.mailroom_message_id])).toEqual([
      [null, null],
      [null, null],
    ]);
    await pool.query("DELETE FROM sandbox_messages WHERE subject = 'old'");
  });

  it("the sandbox MX refuses a MAIL FROM that is no signed VERP address of ours, and stores nothing", async () => {
    const before = (await app.ctx.database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM sandbox_messages")).rows[0]!.n;
    const [recipient] = (await app.ctx.database.pool.query<{ id: number }>("SELECT id FROM message_recipients WHERE account_id = $1 LIMIT 1", [b.accountId])).rows;
    for (const from of ["shop@example.com", `bounces+${Number(recipient!.id).toString(36)}-0123456789abcdef@bounces.tenant-b.test`, verpAddress("not-the-secret", Number(recipient!.id), "bounces.tenant-b.test")]) {
      const t = nodemailer.createTransport({ host: "127.0.0.1", port: sandboxPort, secure: false, ignoreTLS: true });
      const err = await t
        .sendMail({ envelope: { from, to: ["bob@example.org"] }, raw: `From: news@tenant-b.test\r\nMessage-ID: <${recipient!.id}@x>\r\nSubject: forged\r\n\r\nx\r\n` })
        .then(
          () => undefined,
          (e: { response?: string }) => e,
        );
      t.close();
      expect(err?.response, from).toMatch(/^550 5\.7\.1 The sandbox MX accepts only mail sent by this service/);
    }
    expect((await app.ctx.database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM sandbox_messages")).rows[0]!.n).toBe(before);
  });
});
