import net from "node:net";
import { PassThrough } from "node:stream";
import type SMTPConnection from "nodemailer/lib/smtp-connection";
import { describe, expect, it } from "vitest";
import { enterPhase, retireConnection, smtpConnectionOptions, timeoutError, watchPhases, type Connection } from "./smtp-connection";

const fresh = (): Connection => ({ socket: new net.Socket(), dead: false, phase: "connect", phaseSince: 0, progressAt: 0, idleSince: 0, transactions: 0 });

/** The two private methods of SMTPConnection the phase watch wraps, and what they were called with. */
function fakeSmtp() {
  const commands: string[] = [];
  const stream = new PassThrough();
  const smtp = {
    _sendCommand(str: string) {
      commands.push(str);
    },
    _createSendStream() {
      return stream;
    },
  };
  return { smtp: smtp as unknown as SMTPConnection, commands, stream };
}

describe("one connection of the SMTP pool", () => {
  it("gives SMTPConnection the backstop on all its timers and opportunistic TLS with the target's SNI name", () => {
    const socket = new net.Socket();
    const options = smtpConnectionOptions(socket, { host: "192.0.2.1", port: 25, secure: false, servername: "mx.example" }, { heloName: "mail.test", backstopMs: 660_000 });
    expect(options).toMatchObject({
      connection: socket,
      host: "192.0.2.1",
      port: 25,
      secure: false,
      name: "mail.test",
      connectionTimeout: 660_000,
      greetingTimeout: 660_000,
      socketTimeout: 660_000,
      tls: { rejectUnauthorized: false, servername: "mx.example" },
    });
  });

  it("starts a phase: its time and the last progress are now", () => {
    const c = fresh();
    enterPhase(c, "greeting");
    expect(c.phase).toBe("greeting");
    expect(c.phaseSince).toBeGreaterThan(0);
    expect(c.progressAt).toBe(c.phaseSince);
  });

  it("follows the phases through the commands written and the message's data, passing both on", () => {
    const c = fresh();
    const { smtp, commands, stream } = fakeSmtp();
    watchPhases(smtp, c);
    const internals = smtp as unknown as { _sendCommand(s: string): void; _createSendStream(cb: unknown): PassThrough };
    internals._sendCommand("MAIL FROM:<a@example.com>");
    expect(c.phase).toBe("MAIL");
    internals._sendCommand("RCPT TO:<b@example.com>");
    expect(c.phase).toBe("RCPT");
    expect(commands).toEqual(["MAIL FROM:<a@example.com>", "RCPT TO:<b@example.com>"]);
    expect(internals._createSendStream(() => {})).toBe(stream);
    expect(c.phase).toBe("data block");
    stream.resume();
    stream.end("body");
    return new Promise<void>((resolve) =>
      stream.once("end", () => {
        expect(c.phase).toBe("end of data");
        resolve();
      }),
    );
  });

  it("refuses an SMTPConnection without the methods it watches", () => {
    expect(() => watchPhases({} as SMTPConnection, fresh())).toThrow(/_sendCommand\/_createSendStream/);
  });

  it("names the phase that ran out of time, a connect as 4.4.1 and the others 4.4.2", () => {
    expect(timeoutError({ phase: "connect", limitMs: 5000 })).toMatchObject({ code: "ETIMEDOUT", enhancedCode: "4.4.1" });
    expect(timeoutError({ phase: "RCPT", limitMs: 300_000 })).toMatchObject({ code: "ETIMEDOUT", enhancedCode: "4.4.2", message: expect.stringContaining("RCPT") });
  });

  it("drops a failed connection at once unless asked to close it gracefully; never used again", () => {
    const dropped = fresh();
    retireConnection(dropped, false);
    expect([dropped.dead, dropped.socket.destroyed]).toEqual([true, true]);
    const closing = fresh();
    retireConnection(closing, true);
    expect([closing.dead, closing.socket.destroyed]).toEqual([true, false]);
    closing.socket.destroy();
  });
});
