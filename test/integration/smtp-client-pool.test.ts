import net from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SmtpClient } from "../../lib/delivery/smtp-client";
import { startSilentPeer, type SilentAt } from "../support/silent-smtp-peer";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";

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
  /** How many of the next MAIL FROM commands cross the peer's idle timeout: a 421 and the connection closed. */
  let timeoutAtMailFrom = 0;

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
        if (timeoutAtMailFrom > 0) {
          timeoutAtMailFrom--;
          // What smtp-server's idle timeout writes (and then closes), here just as the client's MAIL FROM arrives.
          for (const c of liveSessions()) if ((c as unknown as { id: string }).id === session.id) c.send(421, "Timeout - closing connection");
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
  const liveSessions = () => (server as unknown as { connections: Set<{ close(): void; send(code: number, text: string): void }> }).connections;

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

  /** One message over a pooled connection, then `fault` set for the next MAIL FROM: the second message is accepted once, on a fresh connection. */
  async function resentOnFreshConnection(fault: () => void, n: number): Promise<void> {
    const client = new SmtpClient({ heloName: "test.example", maxConnections: 1 });
    expect((await client.send(target(), { from: "a@example.org", to: "first@example.org" }, raw(n))).answer.responseCode).toBe(250);
    fault();
    const before = accepted;
    const second = await client.send(target(), { from: "a@example.org", to: "second@example.org" }, raw(n + 1));
    expect(second.answer).toMatchObject({ responseCode: 250 });
    expect(accepted - before).toBe(1);
    client.close();
  }

  it("replaces a pooled connection that turns out dead when used, and the message still goes out", async () => {
    // The pooled connection looks alive, then the peer drops it at MAIL FROM (as one closing an idle
    // connection at that very moment would): sent again once, on a fresh connection.
    await resentOnFreshConnection(() => (dropAtMailFrom = 1), 1);
  });

  it("sends again on a fresh connection when a pooled one's idle timeout (a 421) crosses its MAIL FROM", async () => {
    await resentOnFreshConnection(() => (timeoutAtMailFrom = 1), 6);
    // On a fresh connection a 421 at MAIL FROM is the answer (deferred), not sent again.
    const fresh = new SmtpClient({ heloName: "test.example", maxConnections: 1 });
    timeoutAtMailFrom = 1;
    const refused = await fresh.send(target(), { from: "a@example.org", to: "third@example.org" }, raw(8));
    expect(refused.answer).toMatchObject({ responseCode: 421 });
    expect(timeoutAtMailFrom).toBe(0);
    fresh.close();
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

/**
 * Degrade, never stall (docs/adr/0321): every phase has its own limit and a
 * timeout is an answer naming it (never a silent resend), fresh mail gets
 * past a tarpit, a slot is waited for only so long, and transactions that get
 * no answer never hold the slots kept for mail that is answered.
 */
describe("SMTP client pool against silent peers", () => {
  const raw = (n: number, bytes = 0) =>
    Buffer.concat([Buffer.from(`From: a@example.org\r\nTo: b@example.org\r\nSubject: ${n}\r\n\r\n`), Buffer.alloc(bytes, "x"), Buffer.from(`\r\nbody ${n}\r\n`)]);
  // Distinct limits, so that the reason shows which one ran out.
  const timeouts = { connectMs: 5_000, greetingMs: 300, mailMs: 400, rcptMs: 500, dataMs: 600, dataBlockMs: 700, dataEndMs: 800 };
  const expected: Record<SilentAt, [string, string, boolean]> = {
    greeting: ["Timeout waiting for the greeting (no answer after 300ms)", "4.4.2", true],
    EHLO: ["Timeout waiting for EHLO reply (no answer after 300ms)", "4.4.2", true],
    MAIL: ["Timeout waiting for MAIL reply (no answer after 400ms)", "4.4.2", false],
    RCPT: ["Timeout waiting for RCPT reply (no answer after 500ms)", "4.4.2", false],
    DATA: ["Timeout waiting for DATA reply (no answer after 600ms)", "4.4.2", false],
    "end of data": ["Timeout waiting for the reply to the end of data (no answer after 800ms)", "4.4.2", false],
    "data block": ["Timeout sending the message data (no progress for 700ms)", "4.4.2", false],
  };

  for (const phase of ["greeting", "EHLO", "MAIL", "RCPT", "DATA", "end of data"] as const) {
    it(`gives up at the ${phase} limit, says so, and sends nothing again`, async () => {
      const peer = await startSilentPeer(phase);
      const client = new SmtpClient({ heloName: "test.example", maxConnections: 1, timeouts, stallAfterMs: 10_000 });
      const started = Date.now();
      const outcome = await client.send({ host: "127.0.0.1", port: peer.port, secure: false }, { from: "a@example.org", to: "b@example.org" }, raw(1));
      const [reason, enhanced, beforeTransaction] = expected[phase];
      expect(outcome.answer).toEqual({ responseCode: undefined, response: reason, errorCode: "ETIMEDOUT", enhancedCode: enhanced });
      expect(outcome.beforeTransaction).toBe(beforeTransaction);
      expect(Date.now() - started).toBeLessThan(3_000);
      await new Promise((r) => setTimeout(r, 300));
      expect(peer.connections).toBe(1);
      expect(peer.commands.filter((c) => c.startsWith("MAIL")).length).toBe(beforeTransaction ? 0 : 1);
      client.close();
      await peer.stop();
    });
  }

  it("gives up on data the peer stops reading at the data block limit", async () => {
    const peer = await startSilentPeer("data block");
    const client = new SmtpClient({ heloName: "test.example", maxConnections: 1, timeouts: { ...timeouts, dataEndMs: 20_000 }, stallAfterMs: 10_000 });
    // More than loopback's socket buffers take while the peer reads nothing.
    const outcome = await client.send({ host: "127.0.0.1", port: peer.port, secure: false }, { from: "a@example.org", to: "b@example.org" }, raw(1, 16 * 1024 * 1024));
    expect(outcome.answer).toMatchObject({ response: expected["data block"][0], errorCode: "ETIMEDOUT", enhancedCode: "4.4.2" });
    client.close();
    await peer.stop();
  }, 30_000);

  describe("with a relay that never answers RCPT for some recipients", () => {
    let sink: SmtpSink;
    beforeAll(async () => {
      sink = await startSmtpSink({ rcptSilent: (a) => a.startsWith("stuck") });
    });
    afterAll(async () => {
      await sink.stop();
    });
    const relay = () => ({ host: "127.0.0.1", port: sink.port, secure: false });
    const send = (client: SmtpClient, to: string) => client.send(relay(), { from: "a@example.org", to }, raw(0));

    it("defers a transaction that timed out on a reused connection, and never sends it again", async () => {
      const client = new SmtpClient({ heloName: "test.example", maxConnections: 1, timeouts: { rcptMs: 500 }, stallAfterMs: 10_000 });
      expect((await send(client, "warm@example.org")).answer.responseCode).toBe(250);
      // The stuck one goes out on the pooled connection (the case once taken for a connection that died while idle).
      const stuck = await send(client, "stuck-reused@example.org");
      expect(stuck.answer).toMatchObject({ errorCode: "ETIMEDOUT", response: "Timeout waiting for RCPT reply (no answer after 500ms)" });
      await new Promise((r) => setTimeout(r, 700));
      expect(sink.rcptSeen.get("stuck-reused@example.org")).toBe(1);
      expect((await send(client, "after@example.org")).answer.responseCode).toBe(250);
      client.close();
    });

    it("delivers fresh mail past stuck transactions on extra connections, then defers each stuck one once", async () => {
      const client = new SmtpClient({ heloName: "test.example", maxConnections: 2, timeouts: { rcptMs: 5_000 }, stallAfterMs: 300, slotWaitMs: 10_000 });
      const settled = new Set<string>();
      const stuck = ["stuck-1@tarpit.example", "stuck-2@tarpit.example", "stuck-3@tarpit.example"].map((to) =>
        send(client, to).then((o) => (settled.add(to), o)),
      );
      await new Promise((r) => setTimeout(r, 50));
      // Both slots (and a waiter) are taken by the tarpit; these wait for its transactions to stall, then go past them.
      const sentAt = Date.now();
      const fresh = await Promise.all(Array.from({ length: 8 }, (_, n) => send(client, `fresh-${n}@example.org`)));
      expect(fresh.map((o) => o.answer.responseCode)).toEqual(Array(8).fill(250));
      expect(Date.now() - sentAt).toBeLessThan(3_000);
      expect(settled.size).toBe(0);
      const outcomes = await Promise.all(stuck);
      for (const o of outcomes) expect(o.answer).toMatchObject({ errorCode: "ETIMEDOUT", response: "Timeout waiting for RCPT reply (no answer after 5s)" });
      await new Promise((r) => setTimeout(r, 500));
      for (let n = 1; n <= 3; n++) expect(sink.rcptSeen.get(`stuck-${n}@tarpit.example`)).toBe(1);
      client.close();
    }, 20_000);

    it("waits for a slot only so long, and defers untried", async () => {
      const client = new SmtpClient({ heloName: "test.example", maxConnections: 1, timeouts: { rcptMs: 4_000 }, stallAfterMs: 10_000, slotWaitMs: 300 });
      const stuck = send(client, "stuck-wait@example.org");
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      const waited = await send(client, "waited@example.org");
      expect(waited.answer).toEqual({
        response: `Not tried: no connection to 127.0.0.1:${sink.port} free within 300ms (transactions running: 1, stalled: 0)`,
        errorCode: "ESLOTWAIT",
        enhancedCode: "4.4.5",
      });
      expect(waited.beforeTransaction).toBe(true);
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(sink.rcptSeen.get("waited@example.org")).toBeUndefined();
      expect((await stuck).answer.errorCode).toBe("ETIMEDOUT");
      client.close();
    }, 10_000);

    it("refuses more transactions for a recipient domain that gets no answer once stuck ones hold their share, past one probe, and not others", async () => {
      // Budget of 4 job slots, 1 kept: stuck lanes may hold 3.
      const client = new SmtpClient({
        heloName: "test.example",
        maxConnections: 8,
        timeouts: { rcptMs: 3_000 },
        stallAfterMs: 200,
        shared: { total: 4, reserve: 1 },
      });
      const stuck = ["stuck-a@slow.example", "stuck-b@slow.example", "stuck-c@slow.example"].map((to) => send(client, to));
      await new Promise((r) => setTimeout(r, 600));
      // A fresh recipient of that domain still gets a transaction of its own, a probe (docs/adr/0325); it hangs
      // too, so it is given up at the stall time, not held to the RCPT limit.
      const probeStarted = Date.now();
      const probe = await send(client, "stuck-d@slow.example");
      expect(probe.answer).toMatchObject({ errorCode: "EGIVENUP", enhancedCode: "4.4.2" });
      expect(probe.answer.response).toMatch(/^Not answered: no reply to RCPT within 200ms while other transactions for slow\.example stall/);
      expect(Date.now() - probeStarted).toBeLessThan(1_500);
      // Now known to stall there, it is refused at once.
      const started = Date.now();
      const refused = await send(client, "stuck-d@slow.example");
      expect(refused.answer).toMatchObject({ errorCode: "ESLOTSHARE", enhancedCode: "4.4.5" });
      expect(refused.answer.response).toMatch(/^Not tried: transactions that get no answer/);
      // At once: no wait for a slot (that would be the default minute).
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(sink.rcptSeen.get("stuck-d@slow.example")).toBe(1);
      // Another recipient domain at the same relay is answered: never refused.
      expect((await send(client, "ann@example.org")).answer.responseCode).toBe(250);
      for (const o of await Promise.all(stuck)) expect(o.answer.errorCode).toBe("ETIMEDOUT");
      client.close();
    }, 10_000);
  });
});
