import { connect, type Socket } from "node:net";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued } from "../support/delivery-helpers";
import { externalAddress, plainAuth, rawSession, type RawSession } from "../support/smtp-raw";
import { submissionEnv } from "../support/submission";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The submission server's sessions before AUTH (docs/adr/0706, lib/submission/session-guard.ts),
 * over real sockets: a cap on open sessions per client address, the AUTH deadline, the failed-AUTH
 * limit refusing before credentials are read, and AUTH neither offered nor taken before STARTTLS.
 * Loopback addresses other than 127.0.0.1 (127.0.0.2, 127.0.0.3) stand for other hosts.
 */
describe("SMTP submission: sessions before AUTH", () => {
  let app: TestApp;
  let port: number;
  let tlsPort: number;
  let apiKey: string;
  const opened: RawSession[] = [];
  const session = (p: number, options: Parameters<typeof rawSession>[1] = {}) => {
    const s = rawSession(p, options);
    opened.push(s);
    return s;
  };

  beforeAll(async () => {
    const s = await submissionEnv();
    ({ port, tlsPort } = s);
    // Defaults for the per-address cap (10) and the AUTH timeout (30 s); 3 failed AUTH per minute.
    app = await startTestApp({ ...s.env, MAILROOM_SUBMISSION_HOST: "0.0.0.0", MAILROOM_SUBMISSION_AUTH_FAILURES_PER_MINUTE: "3" });
    ({ apiKey } = await createTestAccount(app.ctx));
  });
  afterAll(async () => {
    for (const s of opened) s.end();
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
  });

  const sendFrom = async (localAddress: string) => {
    const t = nodemailer.createTransport({ host: "127.0.0.1", port, localAddress, auth: { user: "apikey", pass: apiKey }, tls: { rejectUnauthorized: false } });
    try {
      return await t.sendMail({ from: "shop@example.com", to: "a@example.org", subject: "x", text: "x" });
    } finally {
      t.close();
    }
  };

  it("refuses an address's 11th open session (421) on both ports while another address connects and sends", async () => {
    expect(app.ctx.config.submission.connectionsPerAddress).toBe(10);
    const idle = Array.from({ length: 10 }, () => session(port));
    for (const s of idle) await s.waitFor(/^220 /m);
    const extra = [session(port), session(port)];
    for (const s of extra) {
      expect(await s.waitFor(/^421 /m)).toMatch(/^421 4\.7\.0 Too many connections from your address/m);
      await s.waitClosed();
    }
    // The cap counts both ports together.
    const overTls = session(tlsPort, { tls: true });
    expect(await overTls.waitFor(/^421 /m)).toMatch(/^421 4\.7\.0 Too many connections from your address/m);

    // Another host is not held up by the first one's sessions.
    const info = await sendFrom("127.0.0.2");
    expect(info.response).toMatch(/^250 2\.0\.0 OK /);

    // One of the ten closes: its slot is free again.
    idle[0]!.end();
    const next = async () => {
      const s = session(port);
      const text = await s.waitFor(/^(220|421) /m);
      return text.startsWith("220");
    };
    const until = Date.now() + 5000;
    while (!(await next())) if (Date.now() > until) throw new Error("the freed slot was not given back");
    for (const s of idle) s.end();
  });

  it("closes a session that has not authenticated within the AUTH timeout with 421, busy or not; an authenticated one stays", async () => {
    app.ctx.config.submission.authTimeoutMs = 1000; // read per session; the default is 30 s
    try {
      const busy = session(port, { localAddress: "127.0.0.4" });
      await busy.waitFor(/^220 /m);
      busy.send("EHLO client.example");
      const started = Date.now();
      // A command every 300 ms: never idle, so the idle timeout (60 s) would not close it.
      const keepBusy = setInterval(() => busy.send("NOOP"), 300);
      try {
        expect(await busy.waitFor(/^421 /m, 4000)).toMatch(/^421 4\.7\.0 Authentication not completed in time/m);
        await busy.waitClosed();
      } finally {
        clearInterval(keepBusy);
      }
      expect(Date.now() - started).toBeGreaterThanOrEqual(700);

      const authed = session(port, { localAddress: "127.0.0.4" });
      await authed.waitFor(/^220 /m);
      authed.send("EHLO client.example");
      authed.send(`AUTH PLAIN ${plainAuth(apiKey)}`);
      await authed.waitFor(/^235 /m);
      await new Promise((r) => setTimeout(r, 1500));
      authed.send("NOOP");
      await authed.waitFor(/^250 [^\r]*OK/m);
      expect(authed.isClosed()).toBe(false);
      authed.end();
    } finally {
      app.ctx.config.submission.authTimeoutMs = 30_000;
    }
  });

  it("past 3 failed AUTH from one address answers 454 at the AUTH command, before any credentials; another address authenticates", async () => {
    const attacker = session(port, { localAddress: "127.0.0.3" });
    await attacker.waitFor(/^220 /m);
    attacker.send("EHLO attacker.example");
    await attacker.waitFor(/^250 /m);
    for (let i = 0; i < 3; i++) {
      attacker.clear();
      attacker.send(`AUTH PLAIN ${plainAuth(`mr_wrong_${i}`)}`);
      await attacker.waitFor(/^535 5\.7\.8 /m);
    }
    attacker.clear();
    attacker.send("AUTH LOGIN");
    // No 334 prompt for a user name: refused outright.
    expect(await attacker.waitFor(/^\d{3} /m)).toMatch(/^454 4\.7\.0 Too many failed authentications/);
    attacker.clear();
    attacker.send(`AUTH PLAIN ${plainAuth(apiKey)}`); // even the right key
    expect(await attacker.waitFor(/^\d{3} /m)).toMatch(/^454 4\.7\.0 /);
    attacker.end();

    // A new connection from that address is refused alike; another address goes on.
    const again = session(port, { localAddress: "127.0.0.3" });
    await again.waitFor(/^220 /m);
    again.send("EHLO attacker.example");
    await again.waitFor(/^250 /m);
    again.clear();
    again.send("AUTH LOGIN");
    expect(await again.waitFor(/^\d{3} /m)).toMatch(/^454 /);
    again.end();
    expect((await sendFrom("127.0.0.5")).response).toMatch(/^250 2\.0\.0 OK /);
  });

  it("offers AUTH to a non-loopback client only after STARTTLS, and refuses an AUTH before it with 530 without reading credentials", async () => {
    const host = externalAddress();
    const s = session(port, { host });
    await s.waitFor(/^220 /m);
    s.send("EHLO client.example");
    const ehlo = await s.waitFor(/^250 /m);
    expect(ehlo).toMatch(/^250-STARTTLS/m);
    expect(ehlo).not.toMatch(/AUTH/);
    s.clear();
    s.send("AUTH LOGIN");
    expect(await s.waitFor(/^\d{3} /m)).toMatch(/^530 5\.7\.0 Must issue a STARTTLS command first\r\n$/);
    s.clear();
    s.send(`AUTH PLAIN ${plainAuth(apiKey)}`);
    expect(await s.waitFor(/^\d{3} /m)).toMatch(/^530 5\.7\.0 Must issue a STARTTLS command first\r\n$/);

    await s.startTls();
    s.send("EHLO client.example");
    const secured = await s.waitFor(/^250 /m);
    expect(secured).toMatch(/^250-AUTH PLAIN LOGIN\r\n/m);
    expect(secured).not.toMatch(/STARTTLS/);
    s.clear();
    s.send(`AUTH PLAIN ${plainAuth(apiKey)}`);
    expect(await s.waitFor(/^\d{3} /m)).toMatch(/^235 /);
    s.end();

    // Implicit TLS from the same client: AUTH from the first EHLO.
    const t = session(tlsPort, { host, tls: true });
    await t.waitFor(/^220 /m);
    t.send("EHLO client.example");
    expect(await t.waitFor(/^250 /m)).toMatch(/^250-AUTH PLAIN LOGIN\r\n/m);
    t.end();

    // Loopback clients keep plain-text AUTH (local relays, tests).
    const local = session(port);
    await local.waitFor(/^220 /m);
    local.send("EHLO client.example");
    expect(await local.waitFor(/^250 /m)).toMatch(/^250-AUTH PLAIN LOGIN\r\n/m);
    local.end();
  });

  it("never lets MAIL through without AUTH, before or after STARTTLS", async () => {
    const s = session(port, { host: externalAddress() });
    await s.waitFor(/^220 /m);
    s.send("EHLO client.example");
    await s.waitFor(/^250 /m);
    s.clear();
    s.send("MAIL FROM:<shop@example.com>");
    expect(await s.waitFor(/^\d{3} /m)).toMatch(/^530 5\.7\.0 Authentication required/);
    s.end();
  });
});

describe("SMTP submission: port 465 before the TLS handshake", () => {
  let app: TestApp;
  let tlsPort: number;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    const s = await submissionEnv();
    tlsPort = s.tlsPort;
    app = await startTestApp({ ...s.env, MAILROOM_SUBMISSION_CONNECTIONS_PER_ADDRESS: "3" });
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await app?.stop();
  });

  const open = (localAddress: string) =>
    new Promise<{ socket: Socket; closed: () => boolean }>((resolve, reject) => {
      let closed = false;
      const socket = connect({ port: tlsPort, host: "127.0.0.1", localAddress }, () => resolve({ socket, closed: () => closed }));
      socket.on("close", () => (closed = true));
      socket.on("error", () => {});
      socket.once("error", reject);
      sockets.push(socket);
    });

  it("closes an address's connections past the cap at once, even if they never start TLS; another address still gets a session", async () => {
    const held = [await open("127.0.0.6"), await open("127.0.0.6"), await open("127.0.0.6")];
    const extra = await open("127.0.0.6");
    const until = Date.now() + 2000;
    while (!extra.closed() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(extra.closed()).toBe(true);
    expect(held.every((h) => !h.closed())).toBe(true);

    const other = rawSession(tlsPort, { tls: true, localAddress: "127.0.0.7" });
    await other.waitFor(/^220 /m);
    other.end();
    // The held ones leave: the address gets in again.
    for (const h of held) h.socket.destroy();
    await new Promise((r) => setTimeout(r, 200));
    const back = rawSession(tlsPort, { tls: true, localAddress: "127.0.0.6" });
    await back.waitFor(/^220 /m);
    back.end();
  });
});
