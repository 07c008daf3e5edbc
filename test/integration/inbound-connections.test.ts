import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getInboundAddress } from "../../lib/inbound/inbound-server";
import { bearer, createTestAccount } from "../support/fixtures";
import { rawSession, type RawSession } from "../support/smtp-raw";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Open sessions per client address on the inbound SMTP server
 * (MAILROOM_INBOUND_CONNECTIONS_PER_ADDRESS, docs/contract.md §13.2), the
 * submission server's rule: clients on several loopback source addresses
 * (127.0.0.2 …) hold sessions open; one more from a full address is
 * answered 421 and closed, other addresses are not held by it, and a closed
 * session gives its slot back.
 */
describe("inbound SMTP: open connections per client address", () => {
  let app: TestApp;
  let port: number;
  const open: RawSession[] = [];

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off", MAILROOM_INBOUND_CONNECTIONS_PER_ADDRESS: "3", MAILROOM_INBOUND_CONNECTIONS_PER_MINUTE: "10000" });
    port = getInboundAddress(app.ctx)!.port;
    const account = await createTestAccount(app.ctx, { domain: "capped-in.example" });
    const res = await app.fetch("/api/v1/inbound/routes", {
      method: "POST",
      headers: bearer(account.apiKey),
      body: JSON.stringify({ Match: "*@capped-in.example", WebhookURL: "https://hooks.example.com/in" }),
    });
    expect(res.status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    for (const s of open) s.end();
    await app?.stop();
  });

  async function greeted(localAddress: string): Promise<RawSession> {
    const s = rawSession(port, { localAddress });
    open.push(s);
    await s.waitFor(/^220 /m);
    return s;
  }

  async function refused(localAddress: string): Promise<void> {
    const s = rawSession(port, { localAddress });
    open.push(s);
    await s.waitFor(/^421 4\.7\.0 Too many connections from your address/m);
    await s.waitClosed();
  }

  it("answers 421 to one more session from a full address, not to other addresses, and frees a slot when one closes", async () => {
    const first = [await greeted("127.0.0.2"), await greeted("127.0.0.2"), await greeted("127.0.0.2")];
    await refused("127.0.0.2");
    // Another address has its own three.
    for (let i = 0; i < 3; i++) await greeted("127.0.0.3");
    await refused("127.0.0.3");

    // Mail from a third address goes through while the first two are full.
    const t = nodemailer.createTransport({ host: "127.0.0.1", port, localAddress: "127.0.0.4", secure: false, ignoreTLS: true });
    const info = await t.sendMail({ from: "a@sender.example", to: "desk@capped-in.example", subject: "through", text: "hello" });
    t.close();
    expect(info.response).toMatch(/^250/);

    // A session that ends gives its slot back (QUIT, and a dropped socket alike).
    first[0]!.send("QUIT");
    await first[0]!.waitClosed();
    const again = await greeted("127.0.0.2");
    await refused("127.0.0.2");
    first[1]!.end();
    await new Promise((r) => setTimeout(r, 200));
    await greeted("127.0.0.2");
    await refused("127.0.0.2");
    expect(again.isClosed()).toBe(false);
  }, 60_000);
});
