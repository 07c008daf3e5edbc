import net from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SmtpClient } from "../../lib/delivery/smtp-client";

/**
 * The delivery SMTP client's own pool (docs/adr/0023) against a real SMTP
 * peer (smtp-server): bounded connections reused across messages, a pooled
 * connection the peer closed replaced without failing the message, a peer
 * that never greets given up on in time.
 */
describe("SMTP client pool", () => {
  let server: SMTPServer;
  let port: number;
  let open = 0;
  let peak = 0;
  let accepted = 0;
  /** How many of the next MAIL FROM commands the peer answers by dropping the connection. */
  let dropAtMailFrom = 0;

  beforeAll(async () => {
    server = new SMTPServer({
      logger: false,
      authOptional: true,
      disabledCommands: ["AUTH", "STARTTLS"],
      onConnect(session, callback) {
        open++;
        peak = Math.max(peak, open);
        callback();
      },
      onClose() {
        open--;
      },
      onMailFrom(_address, session, callback) {
        if (dropAtMailFrom > 0) {
          dropAtMailFrom--;
          for (const c of liveSessions()) if ((c as unknown as { id: string }).id === session.id) c.close();
          return;
        }
        callback();
      },
      onData(stream, _session, callback) {
        stream.resume();
        stream.on("end", () => {
          accepted++;
          // Keep transactions in flight for a moment, so that concurrency shows.
          setTimeout(() => callback(null, "2.0.0 Ok"), 5);
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const target = () => ({ host: "127.0.0.1", port, secure: false });
  const raw = (n: number) => Buffer.from(`From: a@example.org\r\nTo: b@example.org\r\nSubject: ${n}\r\n\r\nbody ${n}\r\n`);
  // smtp-server keeps its sessions in `connections`; the test closes them as a server's idle timeout would.
  const liveSessions = () => (server as unknown as { connections: Set<{ close(): void }> }).connections;

  it("sends 40 messages over at most 3 connections, reusing them", async () => {
    const client = new SmtpClient({ heloName: "test.example", maxConnections: 3 });
    const before = accepted;
    peak = 0;
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, n) => client.send(target(), { from: "a@example.org", to: `r${n}@example.org` }, raw(n))));
    expect(outcomes.map((o) => o.answer.responseCode)).toEqual(Array(40).fill(250));
    expect(accepted - before).toBe(40);
    expect(peak).toBe(3);
    client.close();
  });

  it("replaces a pooled connection that turns out dead when used, and the message still goes out", async () => {
    const client = new SmtpClient({ heloName: "test.example", maxConnections: 1 });
    expect((await client.send(target(), { from: "a@example.org", to: "first@example.org" }, raw(1))).answer.responseCode).toBe(250);
    // The pooled connection looks alive, then the peer drops it at MAIL FROM (as one closing an idle
    // connection at that very moment would): sent again once, on a fresh connection.
    dropAtMailFrom = 1;
    const before = accepted;
    const second = await client.send(target(), { from: "a@example.org", to: "second@example.org" }, raw(2));
    expect(second.answer).toMatchObject({ responseCode: 250 });
    expect(accepted - before).toBe(1);
    client.close();
  });

  it("reports a peer that drops a fresh connection mid-transaction as a connection error, and never waits for ever", async () => {
    const client = new SmtpClient({ heloName: "test.example", maxConnections: 1 });
    dropAtMailFrom = 1;
    const outcome = await client.send(target(), { from: "a@example.org", to: "dropped@example.org" }, raw(4));
    expect(outcome.answer).toMatchObject({ errorCode: "ECONNECTION", responseCode: undefined });
    // The client is usable after it.
    expect((await client.send(target(), { from: "a@example.org", to: "after@example.org" }, raw(5))).answer.responseCode).toBe(250);
    client.close();
  });

  it("gives up on a peer that accepts the connection and never greets, with a timeout", async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const client = new SmtpClient({ heloName: "test.example", maxConnections: 1, timeouts: { greetingMs: 500 } });
    const started = Date.now();
    const outcome = await client.send({ host: "127.0.0.1", port: (silent.address() as net.AddressInfo).port, secure: false }, { from: "a@example.org", to: "b@example.org" }, raw(3));
    expect(outcome.answer.errorCode).toBe("ETIMEDOUT");
    expect(outcome.answer.responseCode).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5_000);
    client.close();
    silent.close();
  });
});
