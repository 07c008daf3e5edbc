import { connect, type Socket } from "node:net";
import os from "node:os";
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from "node:tls";

/**
 * A raw SMTP session over TCP (or implicit TLS): what the server writes, as
 * text, and lines to send. `localAddress` picks the client's source address
 * (anything in 127.0.0.0/8 works on loopback); `startTls()` upgrades in place.
 */
export interface RawSession {
  /** Everything received so far (since the last `clear()`). */
  text(): string;
  clear(): void;
  waitFor(re: RegExp, timeoutMs?: number): Promise<string>;
  send(line: string): void;
  startTls(): Promise<void>;
  isClosed(): boolean;
  waitClosed(timeoutMs?: number): Promise<void>;
  end(): void;
}

export function rawSession(port: number, options: { host?: string; localAddress?: string; tls?: boolean } = {}): RawSession {
  const host = options.host ?? "127.0.0.1";
  let socket: Socket | TLSSocket = options.tls
    ? // tls.connect hands localAddress on to net.connect (its types leave it out).
      tlsConnect({ port, host, rejectUnauthorized: false, ...(options.localAddress && { localAddress: options.localAddress }) } as ConnectionOptions)
    : connect({ port, host, localAddress: options.localAddress });
  let buffer = "";
  let closed = false;
  const listen = (s: Socket) => {
    s.on("data", (c: Buffer) => (buffer += c.toString("latin1")));
    s.on("close", () => (closed = true));
    s.on("error", () => {});
  };
  listen(socket);
  const waitFor = async (re: RegExp, timeoutMs = 5000) => {
    const until = Date.now() + timeoutMs;
    while (!re.test(buffer)) {
      if (Date.now() > until) throw new Error(`no ${re} in ${JSON.stringify(buffer)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return buffer;
  };
  return {
    text: () => buffer,
    clear: () => (buffer = ""),
    waitFor,
    send: (line) => socket.write(`${line}\r\n`),
    async startTls() {
      socket.write("STARTTLS\r\n");
      await waitFor(/^220 .*\r\n/m);
      buffer = "";
      const plain = socket as Socket;
      plain.removeAllListeners("data");
      const secure = tlsConnect({ socket: plain, rejectUnauthorized: false });
      await new Promise<void>((resolve, reject) => {
        secure.once("secureConnect", () => resolve());
        secure.once("error", reject);
      });
      listen(secure);
      socket = secure;
    },
    isClosed: () => closed,
    async waitClosed(timeoutMs = 5000) {
      const until = Date.now() + timeoutMs;
      while (!closed) {
        if (Date.now() > until) throw new Error(`still open; received ${JSON.stringify(buffer)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    end: () => socket.destroy(),
  };
}

/** A non-loopback IPv4 address of this machine: connecting to it from here is a non-loopback client. */
export function externalAddress(): string {
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  throw new Error("this machine has no non-loopback IPv4 address to test plain-text AUTH refusal from");
}

/** The AUTH PLAIN initial response for an API key. */
export const plainAuth = (apiKey: string) => Buffer.from(`\0apikey\0${apiKey}`).toString("base64");
