/**
 * A lean SMTP client for load (bench/inbound.ts): one TCP_NODELAY connection,
 * EHLO once, then per message MAIL, RCPT and DATA pipelined when the server
 * offers PIPELINING (RFC 2920, as MTAs send), and the prebuilt message. It
 * builds no MIME per message, so the load generator's CPU stays small beside
 * the server's (nodemailer took about 0.8 ms of CPU per 10 KB message).
 */
import { connect, type Socket } from "node:net";

export interface SmtpLoadSession {
  send(from: string, to: string, message: Buffer): Promise<void>;
  close(): void;
}

/** Dot-stuffs `message` (CRLF lines) and ends it with the DATA terminator. */
export function dataOf(message: string): Buffer {
  const lines = message.replace(/\r?\n/g, "\r\n").replace(/\r\n$/, "").split("\r\n");
  return Buffer.from(`${lines.map((l) => (l.startsWith(".") ? `.${l}` : l)).join("\r\n")}\r\n.\r\n`);
}

export async function openSmtpLoadSession(host: string, port: number, helo = "load.example"): Promise<SmtpLoadSession> {
  const socket: Socket = connect(port, host);
  socket.setNoDelay(true);
  let buffered = "";
  const waiting: Array<{ resolve(reply: string): void; reject(err: Error): void }> = [];
  let failed: Error | undefined;
  const fail = (err: Error) => {
    failed = err;
    for (const w of waiting.splice(0)) w.reject(err);
  };
  socket.on("error", fail);
  socket.on("close", () => fail(new Error("connection closed")));
  socket.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("latin1");
    for (let end = buffered.indexOf("\r\n"); end >= 0; end = buffered.indexOf("\r\n")) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      // The last line of a reply has a space (or nothing) after its code.
      if (line[3] !== "-") waiting.shift()?.resolve(line);
    }
  });
  const reply = () =>
    new Promise<string>((resolve, reject) => {
      if (failed) reject(failed);
      else waiting.push({ resolve, reject });
    });
  const expect = async (code: string) => {
    const line = await reply();
    if (!line.startsWith(code)) throw new Error(`expected ${code}, got: ${line}`);
  };
  await expect("220");
  let ehloLines = "";
  const ehloDone = reply();
  const collect = (chunk: Buffer) => (ehloLines += chunk.toString("latin1"));
  socket.on("data", collect);
  socket.write(`EHLO ${helo}\r\n`);
  if (!(await ehloDone).startsWith("250")) throw new Error("EHLO refused");
  socket.off("data", collect);
  const pipelining = /^250[- ]PIPELINING\b/im.test(ehloLines);

  return {
    async send(from, to, message) {
      if (pipelining) {
        const replies = [reply(), reply(), reply()];
        socket.write(`MAIL FROM:<${from}>\r\nRCPT TO:<${to}>\r\nDATA\r\n`);
        const [mail, rcpt, data] = await Promise.all(replies);
        if (!mail!.startsWith("250") || !rcpt!.startsWith("250") || !data!.startsWith("354")) {
          // A 354 after a refusal: end the empty DATA and read its reply, so the next message starts clean.
          if (data!.startsWith("354")) {
            const ended = reply();
            socket.write(".\r\n");
            await ended.catch(() => undefined);
          }
          throw new Error(`refused: ${mail} / ${rcpt} / ${data}`);
        }
      } else {
        socket.write(`MAIL FROM:<${from}>\r\n`);
        await expect("250");
        socket.write(`RCPT TO:<${to}>\r\n`);
        await expect("250");
        socket.write("DATA\r\n");
        await expect("354");
      }
      const done = reply();
      socket.write(message);
      const line = await done;
      if (!line.startsWith("250")) throw new Error(`message refused: ${line}`);
    },
    close() {
      socket.end("QUIT\r\n");
    },
  };
}
