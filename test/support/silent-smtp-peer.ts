import net from "node:net";

/**
 * A minimal SMTP server over a raw socket that answers normally until one
 * phase, then goes silent there (a tarpit): it never answers that command,
 * or, at "data block", stops reading the message data (so the client's
 * writes stop completing). The commands it saw are recorded, in order.
 */
export type SilentAt = "greeting" | "EHLO" | "MAIL" | "RCPT" | "DATA" | "data block" | "end of data";

export interface SilentPeer {
  port: number;
  /** Command lines received (without CRLF), over all connections. */
  commands: string[];
  connections: number;
  stop(): Promise<void>;
}

export async function startSilentPeer(silentAt: SilentAt): Promise<SilentPeer> {
  const commands: string[] = [];
  const sockets = new Set<net.Socket>();
  const peer: SilentPeer = { port: 0, commands, connections: 0, stop: async () => {} };
  const server = net.createServer((socket) => {
    peer.connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    if (silentAt !== "greeting") socket.write("220 silent.example ESMTP\r\n");
    let buffer = "";
    let inData = false;
    socket.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("latin1");
      for (;;) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end < 0) {
            // Keep only what could still begin the terminator.
            buffer = buffer.slice(-4);
            return;
          }
          buffer = buffer.slice(end + 5);
          inData = false;
          if (silentAt !== "end of data") socket.write("250 2.0.0 Ok\r\n");
          continue;
        }
        const eol = buffer.indexOf("\r\n");
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        commands.push(line);
        const verb = line.split(" ")[0]!.toUpperCase();
        if (verb === "EHLO" || verb === "HELO") {
          if (silentAt !== "EHLO") socket.write("250-silent.example\r\n250 PIPELINING\r\n");
        } else if (verb === "MAIL") {
          if (silentAt !== "MAIL") socket.write("250 2.1.0 Ok\r\n");
        } else if (verb === "RCPT") {
          if (silentAt !== "RCPT") socket.write("250 2.1.5 Ok\r\n");
        } else if (verb === "DATA") {
          if (silentAt === "DATA") continue;
          socket.write("354 End data with <CR><LF>.<CR><LF>\r\n");
          inData = true;
          // Stop reading: the client's data writes stop completing once the buffers are full.
          if (silentAt === "data block") return void socket.pause();
        } else if (verb === "QUIT") {
          socket.end("221 2.0.0 Bye\r\n");
        } else {
          socket.write("502 5.5.1 Not implemented\r\n");
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  peer.port = (server.address() as net.AddressInfo).port;
  peer.stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return peer;
}
