import { SMTPServer } from "smtp-server";

/**
 * An SMTP peer for load: answers 250 to every message (after `delayMs`, to
 * keep deliveries in flight when a test needs that) and keeps only counts,
 * never bodies, so it can take tens of thousands of messages.
 */
export interface CountingSink {
  port: number;
  stats(): SinkStats;
  /** The distinct RCPT TO addresses of completed messages. */
  addresses(): ReadonlySet<string>;
  stop(): Promise<void>;
}

export interface SinkStats {
  messages: number;
  /** RCPT TO addresses accepted in completed messages, repeats included. */
  recipients: number;
  /** Distinct RCPT TO addresses: recipients - distinct = redeliveries. */
  distinctRecipients: number;
  /** Epoch ms of the first and last message answered. */
  firstAt: number;
  lastAt: number;
}

export async function startCountingSink(options: { port?: number; delayMs?: number; tls?: { key: Buffer; cert: Buffer } } = {}): Promise<CountingSink> {
  const seen = new Set<string>();
  const stats: SinkStats = { messages: 0, recipients: 0, distinctRecipients: 0, firstAt: 0, lastAt: 0 };
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    // With a certificate it offers STARTTLS (an MX under a TLS policy, bench:e2e --mx).
    disabledCommands: options.tls ? ["AUTH"] : ["AUTH", "STARTTLS"],
    ...(options.tls && { key: options.tls.key, cert: options.tls.cert }),
    onData(stream, session, callback) {
      stream.resume();
      stream.on("end", () => {
        const answer = () => {
          const now = Date.now();
          stats.messages++;
          stats.firstAt ||= now;
          stats.lastAt = now;
          for (const r of session.envelope.rcptTo) {
            stats.recipients++;
            seen.add(r.address);
          }
          stats.distinctRecipients = seen.size;
          callback(null, "2.0.0 Ok");
        };
        if (options.delayMs) setTimeout(answer, options.delayMs);
        else answer();
      });
    },
  });
  // A sender killed mid-session (the crash tests) resets its connection: not an error of the sink.
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", () => resolve()));
  return {
    port: (server.server.address() as { port: number }).port,
    stats: () => ({ ...stats }),
    addresses: () => seen,
    // Connections of a killed sender may linger until their idle timeout: close() waits for them otherwise.
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        setTimeout(resolve, 2000).unref();
      }),
  };
}
