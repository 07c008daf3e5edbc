import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getInboundAddress, MAX_REFUSED_RECIPIENTS, MAX_SESSION_RCPTS } from "../../lib/inbound/inbound-server";
import { bearer, createTestAccount } from "../support/fixtures";
import { rawSession } from "../support/smtp-raw";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * What one sender can make the inbound server store and look up
 * (docs/adr/0807, docs/contract.md §13.2), over real SMTP from several
 * loopback addresses: the bytes of raw MIME per client address and per
 * account per hour (452 4.3.1 past either, nothing stored, then refused
 * at MAIL or RCPT for the rest of the hour), refused recipients per session
 * (421 and the connection closed), and the disk's reserve (452 4.3.1).
 */
const ADDRESS_BUDGET = 100_000;
const ACCOUNT_BUDGET = 150_000;

type SmtpError = { responseCode?: number; response?: string; command?: string };

/** A message of about `bytes` bytes. */
const messageOf = (bytes: number, subject: string) =>
  Buffer.from(`From: ann@sender.example\r\nTo: in@x.example\r\nSubject: ${subject}\r\n\r\n${"x".repeat(76).concat("\r\n").repeat(Math.ceil(bytes / 78))}`);

async function send(port: number, localAddress: string, to: string, raw: Buffer): Promise<string | SmtpError> {
  const t = nodemailer.createTransport({ host: "127.0.0.1", port, localAddress, secure: false, ignoreTLS: true });
  try {
    return (await t.sendMail({ envelope: { from: "ann@sender.example", to: [to] }, raw })).response;
  } catch (err) {
    return err as SmtpError;
  } finally {
    t.close();
  }
}

describe("inbound byte budgets and refused recipients", () => {
  let app: TestApp;
  let port: number;
  const accounts: Record<string, string> = {};

  beforeAll(async () => {
    app = await startTestApp({
      MAILROOM_WORKERS: "off",
      MAILROOM_INBOUND_CONNECTIONS_PER_MINUTE: "10000",
      MAILROOM_INBOUND_BYTES_PER_ADDRESS_HOUR: String(ADDRESS_BUDGET),
      MAILROOM_INBOUND_BYTES_PER_ACCOUNT_HOUR: String(ACCOUNT_BUDGET),
    });
    port = getInboundAddress(app.ctx)!.port;
    for (const name of ["a", "b", "c"]) {
      const account = await createTestAccount(app.ctx, { name: `Budget ${name}`, domain: `budget-${name}.example` });
      accounts[name] = account.accountId;
      const res = await app.fetch("/api/v1/inbound/routes", {
        method: "POST",
        headers: bearer(account.apiKey),
        body: JSON.stringify({ Match: `*@budget-${name}.example`, WebhookURL: "http://127.0.0.1:9/in" }),
      });
      expect(res.status).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  const stored = async (account: string) =>
    (await app.ctx.database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM inbound_messages WHERE account_id = $1", [accounts[account]])).rows[0]!.n;

  it("refuses a client address past its bytes of the hour with 452 4.3.1, stores nothing of it, then refuses it at MAIL", async () => {
    const raw = messageOf(40_000, "from one address");
    expect(await send(port, "127.0.0.2", "in@budget-a.example", raw)).toMatch(/^250 /);
    expect(await send(port, "127.0.0.2", "in@budget-a.example", raw)).toMatch(/^250 /);
    const over = (await send(port, "127.0.0.2", "in@budget-a.example", raw)) as SmtpError;
    expect(over).toMatchObject({ responseCode: 452, command: "DATA" });
    expect(over.response).toMatch(/^452 4\.3\.1 /);
    expect(await stored("a")).toBe(2);
    // Spent for the hour: the next transaction is refused before its DATA, even a small one.
    const next = (await send(port, "127.0.0.2", "in@budget-a.example", messageOf(100, "small"))) as SmtpError;
    expect(next).toMatchObject({ responseCode: 452, command: "MAIL FROM" });
    // Another client address has its own budget.
    expect(await send(port, "127.0.0.3", "in@budget-b.example", raw)).toMatch(/^250 /);
    expect(await stored("a")).toBe(2);
    expect(await stored("b")).toBe(1);
  });

  it("refuses an account past its bytes of the hour, whatever the client address, then at RCPT", async () => {
    const raw = messageOf(40_000, "to one account");
    expect(await send(port, "127.0.0.4", "in@budget-c.example", raw)).toMatch(/^250 /);
    expect(await send(port, "127.0.0.4", "x+1@budget-c.example", raw)).toMatch(/^250 /);
    expect(await send(port, "127.0.0.5", "in@budget-c.example", raw)).toMatch(/^250 /);
    const over = (await send(port, "127.0.0.5", "in@budget-c.example", raw)) as SmtpError;
    expect(over).toMatchObject({ responseCode: 452, command: "DATA" });
    expect(await stored("c")).toBe(3);
    const counted = await app.ctx.database.pool.query<{ bytes: string }>("SELECT bytes FROM inbound_byte_counters WHERE scope = 'account' AND key = $1", [accounts.c]);
    expect(Number(counted.rows[0]!.bytes)).toBe(3 * raw.length);
    const next = (await send(port, "127.0.0.6", "in@budget-c.example", messageOf(100, "small"))) as SmtpError;
    expect(next).toMatchObject({ responseCode: 452, command: "RCPT TO" });
    expect(next.response).toMatch(/^452 4\.3\.1 /);
  });

  it(`closes a session with 421 after ${MAX_REFUSED_RECIPIENTS} refused recipients`, async () => {
    const s = rawSession(port, { localAddress: "127.0.0.7" });
    await s.waitFor(/^220 /m);
    s.send("EHLO client.example");
    await s.waitFor(/^250 /m);
    s.send("MAIL FROM:<ann@sender.example>");
    await s.waitFor(/^250 .*\r\n/m);
    for (let i = 0; i < MAX_REFUSED_RECIPIENTS; i++) {
      s.clear();
      s.send(`RCPT TO:<nobody${i}@nowhere.example>`);
      await s.waitFor(/^550 /m);
    }
    s.clear();
    s.send("RCPT TO:<in@budget-b.example>");
    expect(await s.waitFor(/^421 /m)).toMatch(/^421 4\.7\.0 /m);
    await s.waitClosed();
  });

  it(`closes a session with 421 after ${MAX_SESSION_RCPTS} RCPT commands, however they were answered`, async () => {
    // The same routed address again and again adds no recipient to the transaction, but each costs a lookup.
    const s = rawSession(port, { localAddress: "127.0.0.8" });
    await s.waitFor(/^220 /m);
    s.send("EHLO client.example");
    await s.waitFor(/^250 [^\r]*\r\n/m);
    s.clear();
    s.send("MAIL FROM:<ann@sender.example>");
    await s.waitFor(/^250 [^\r]*\r\n/m);
    // Pipelined (the server offers PIPELINING), in batches of 100 each waited for.
    s.clear();
    for (let sent = 0; sent < MAX_SESSION_RCPTS; sent += 100) {
      s.send(Array.from({ length: 100 }, () => "RCPT TO:<in@budget-b.example>").join("\r\n"));
      await s.waitFor(new RegExp(`(?:^250 [^\\r]*\\r\\n){${sent + 100}}`, "m"), 15_000);
    }
    expect(s.text().match(/^250 /gm)).toHaveLength(MAX_SESSION_RCPTS);
    s.clear();
    s.send("RCPT TO:<in@budget-b.example>");
    expect(await s.waitFor(/^421 /m)).toMatch(/^421 4\.7\.0 Too many recipients in this session/m);
    await s.waitClosed();
  });
});

describe("inbound mail below the disk's reserve", () => {
  let app: TestApp;

  beforeAll(async () => {
    // Every byte of the file system as the reserve: the data directory is always below it.
    app = await startTestApp({ MAILROOM_WORKERS: "off", MAILROOM_INBOUND_CONNECTIONS_PER_MINUTE: "10000", MAILROOM_DISK_MIN_FREE: "100%", MAILROOM_DISK_WARN_FREE: "100%" });
    const account = await createTestAccount(app.ctx, { name: "Disk", domain: "disk-in.example" });
    const res = await app.fetch("/api/v1/inbound/routes", {
      method: "POST",
      headers: bearer(account.apiKey),
      body: JSON.stringify({ Match: "in@disk-in.example", WebhookURL: "http://127.0.0.1:9/in" }),
    });
    expect(res.status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  it("answers a recipient of a route 452 4.3.1 and stores nothing, as POST /email refuses", async () => {
    expect((await app.ctx.disk.sample())?.level).toBe("critical");
    const refused = (await send(getInboundAddress(app.ctx)!.port, "127.0.0.2", "in@disk-in.example", messageOf(100, "disk"))) as SmtpError;
    expect(refused).toMatchObject({ responseCode: 452, command: "RCPT TO" });
    expect(refused.response).toMatch(/^452 4\.3\.1 /);
    expect((await app.ctx.database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM inbound_messages")).rows[0]!.n).toBe(0);
  });
});
