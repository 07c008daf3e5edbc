import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classifySmtpAnswer } from "../../lib/delivery/classify";
import { ConnectionRate } from "../../lib/delivery/destinations/connection-rate";
import { SmtpClient } from "../../lib/delivery/smtp-client";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";

/**
 * A shaping rule's connection members as the SMTP client keeps them (docs/delivery.md), against real
 * SMTP peers (smtp-server): messagesPerConnection closes a connection after N transactions,
 * requireTls sends nothing to a peer without STARTTLS, connectionsPerMinute defers (no attempt spent)
 * what would need one more new connection this minute.
 */
const envelope = (i: number) => ({ from: "shop@example.com", to: `r${i}@example.net` });
const raw = (i: number) => Buffer.from(`Subject: ${i}\r\n\r\nhello ${i}\r\n`);

describe("the SMTP client keeps a destination's connection rule", () => {
  let plain: SmtpSink;
  let tls: SmtpSink;
  const clients: SmtpClient[] = [];
  const client = () => {
    const c = new SmtpClient({ heloName: "mailroom.test", maxConnections: 4 });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    plain = await startSmtpSink();
    // smtp-server's built-in self-signed certificate: opportunistic TLS does not verify it.
    tls = await startSmtpSink({ starttls: true });
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await plain?.stop();
    await tls?.stop();
  });

  it("messagesPerConnection: 2 sends 6 messages on 3 connections, 2 each", async () => {
    const c = client();
    const before = plain.received.length;
    for (let i = 0; i < 6; i++) {
      const r = await c.send({ host: "127.0.0.1", port: plain.port, secure: false }, envelope(i), raw(i), undefined, "", { messagesPerConnection: 2 });
      expect(r.answer.responseCode).toBe(250);
    }
    const mine = plain.received.slice(before);
    const perSession = new Map<string, number>();
    for (const m of mine) perSession.set(m.sessionId, (perSession.get(m.sessionId) ?? 0) + 1);
    expect([...perSession.values()]).toEqual([2, 2, 2]);
  });

  it("without the rule, one connection carries them all", async () => {
    const c = client();
    const before = plain.received.length;
    for (let i = 0; i < 4; i++) await c.send({ host: "127.0.0.1", port: plain.port, secure: false }, envelope(i), raw(i));
    expect(new Set(plain.received.slice(before).map((m) => m.sessionId)).size).toBe(1);
  });

  it("requireTls: a peer without STARTTLS gets no message, and the copy is deferred with the reason", async () => {
    const c = client();
    const before = plain.received.length;
    const r = await c.send({ host: "127.0.0.1", port: plain.port, secure: false, requireTls: true }, envelope(1), raw(1));
    expect(r.beforeTransaction).toBe(true);
    expect(r.answer.errorCode).toBe("ETLSREQUIRED");
    expect(plain.received.length).toBe(before);
    expect(classifySmtpAnswer(r.answer)).toMatchObject({ outcome: "deferred", enhancedCode: "4.7.10", diagnostic: expect.stringContaining("offered no STARTTLS") });
  });

  it("requireTls: a peer with STARTTLS gets the message encrypted", async () => {
    const c = client();
    const r = await c.send({ host: "127.0.0.1", port: tls.port, secure: false, requireTls: true }, envelope(2), raw(2));
    expect(r.answer.responseCode).toBe(250);
    expect(tls.received.at(-1)).toMatchObject({ secure: true, rcptTo: ["r2@example.net"] });
  });

  it("connectionsPerMinute: past the minute's new connections, a copy is held (no attempt spent) until the window frees", async () => {
    const c = client();
    const use = { messagesPerConnection: 1, openRate: new ConnectionRate(2) };
    const target = { host: "127.0.0.1", port: plain.port, secure: false };
    const before = plain.received.length;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await c.send(target, envelope(i), raw(i), undefined, "", use)).answer);
    expect(answers.slice(0, 2).map((a) => a.responseCode)).toEqual([250, 250]);
    expect(answers[2]).toMatchObject({ errorCode: "ECONNRATE" });
    const held = classifySmtpAnswer(answers[2]!);
    expect(held).toMatchObject({ outcome: "deferred", untried: true });
    expect(held.heldUntil! - Date.now()).toBeGreaterThan(50_000);
    expect(held.heldUntil! - Date.now()).toBeLessThanOrEqual(60_000);
    expect(plain.received.length - before).toBe(2);
  });
});
