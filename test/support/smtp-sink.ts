import { SMTPServer, type SMTPServerOptions } from "smtp-server";

/** A real SMTP server on loopback that records what it receives (a relay or a remote MX in tests). */
export interface ReceivedMail {
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
  user?: string;
  secure: boolean;
  /** The SMTP session (connection) it came on. */
  sessionId: string;
  /** The address the session connected from (the client's source address). */
  remoteAddress: string;
}

export interface SmtpSink {
  port: number;
  received: ReceivedMail[];
  /** RCPT TO commands seen, per address. */
  rcptSeen: Map<string, number>;
  stop(): Promise<void>;
}

export async function startSmtpSink(
  options: {
    /** Reply for a recipient: undefined accepts, else [code, text]. */
    rcptReply?: (address: string) => [number, string] | undefined;
    /** A tarpit: RCPT TO for these addresses is never answered (the session hangs until the client gives up). */
    rcptSilent?: (address: string) => boolean;
    auth?: { user: string; pass: string };
    secure?: boolean;
    starttls?: boolean;
    /** The certificate (chain, PEM) and key it presents for STARTTLS or implicit TLS (default: smtp-server's own self-signed one). */
    tls?: { key: Buffer; cert: Buffer };
    onMail?: (mail: ReceivedMail) => void;
    /** Where it listens (default 127.0.0.1, a free port). */
    host?: string;
    port?: number;
  } = {},
): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const rcptSeen = new Map<string, number>();
  const disabled = [...(options.auth ? [] : ["AUTH"]), ...(options.starttls || options.secure ? [] : ["STARTTLS"])];
  const config: SMTPServerOptions = {
    logger: false,
    secure: options.secure ?? false,
    ...(options.tls && { key: options.tls.key, cert: options.tls.cert }),
    disabledCommands: disabled,
    authOptional: !options.auth,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) return callback(null, { user: auth.username });
      return callback(new Error("535 5.7.8 Authentication failed"));
    },
    onRcptTo(address, _session, callback) {
      rcptSeen.set(address.address, (rcptSeen.get(address.address) ?? 0) + 1);
      if (options.rcptSilent?.(address.address)) return;
      const reply = options.rcptReply?.(address.address);
      if (!reply) return callback();
      return callback(Object.assign(new Error(reply[1]), { responseCode: reply[0] }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const mail: ReceivedMail = {
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          user: session.user as string | undefined,
          secure: session.secure,
          sessionId: session.id,
          remoteAddress: session.remoteAddress,
        };
        received.push(mail);
        options.onMail?.(mail);
        callback(null, `2.0.0 Ok: queued as sink-${received.length}`);
      });
    },
  };
  const server = new SMTPServer(config);
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve()));
  return {
    port: (server.server.address() as { port: number }).port,
    received,
    rcptSeen,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
