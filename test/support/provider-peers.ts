import { SMTPServer } from "smtp-server";

/**
 * SMTP peers on 127.0.0.x playing a mail provider of the fake internet
 * (test/support/fake-dns.ts names them as MX hosts; MAILROOM_MX_PORT is the
 * one port they all listen on, each on its own loopback address):
 * - `rate`: answers `421 4.7.28 … unusual rate` (and closes) to a MAIL FROM
 *   past `perWindow` messages accepted in the last `windowMs` (default a minute);
 * - `per-connection`: answers 421 (and closes) to the MAIL FROM after
 *   `messages` messages on one connection;
 * - `tarpit`: never answers RCPT TO for the addresses `silent` names;
 * - `block-list`: answers `550 5.7.1 … blocked using zen.spamhaus.org` to
 *   RCPT TO until `unblock()`;
 * - `accept`: accepts everything.
 * Each records its connections (with their source address), every MAIL FROM
 * (time, answer) and the messages it accepted.
 */

export type PeerBehaviour =
  | { kind: "accept" }
  | { kind: "rate"; perWindow: number; windowMs?: number }
  | { kind: "per-connection"; messages: number }
  | { kind: "tarpit"; silent: (address: string) => boolean }
  | { kind: "block-list" };

export interface PeerAttempt {
  at: number;
  code: number;
}

export interface ProviderPeer {
  host: string;
  port: number;
  connections: { at: number; remoteAddress: string }[];
  /** Every MAIL FROM and what it was answered (250, 421). */
  attempts: PeerAttempt[];
  /** Accepted messages: their recipients and when. */
  delivered: { at: number; rcptTo: string[] }[];
  /** The block-list peer starts accepting. */
  unblock(): void;
  stop(): Promise<void>;
}

export async function startProviderPeer(host: string, port: number, behaviour: PeerBehaviour): Promise<ProviderPeer> {
  const connections: ProviderPeer["connections"] = [];
  const attempts: PeerAttempt[] = [];
  const delivered: ProviderPeer["delivered"] = [];
  const perConnection = new Map<string, number>();
  let blocked = behaviour.kind === "block-list";
  const refuse = (code: number, text: string) => Object.assign(new Error(text), { responseCode: code });

  const server = new SMTPServer({
    logger: false,
    disabledCommands: ["AUTH", "STARTTLS"],
    authOptional: true,
    onConnect(session, callback) {
      connections.push({ at: Date.now(), remoteAddress: session.remoteAddress });
      callback();
    },
    onMailFrom(_address, session, callback) {
      const now = Date.now();
      if (behaviour.kind === "rate") {
        const windowMs = behaviour.windowMs ?? 60_000;
        const recent = delivered.filter((d) => d.at > now - windowMs).length;
        if (recent >= behaviour.perWindow) {
          attempts.push({ at: now, code: 421 });
          return callback(refuse(421, "4.7.28 [127.0.0.1] Our system has detected an unusual rate of unsolicited mail originating from your IP address. To protect our users from spam, mail sent from your IP address has been temporarily rate limited."));
        }
      }
      if (behaviour.kind === "per-connection") {
        const sent = perConnection.get(session.id) ?? 0;
        if (sent >= behaviour.messages) {
          attempts.push({ at: now, code: 421 });
          return callback(refuse(421, "4.7.0 Too many messages on this connection, closing"));
        }
      }
      attempts.push({ at: now, code: 250 });
      callback();
    },
    onRcptTo(address, _session, callback) {
      if (behaviour.kind === "tarpit" && behaviour.silent(address.address)) return;
      if (blocked) return callback(refuse(550, "5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org"));
      callback();
    },
    onData(stream, session, callback) {
      stream.on("data", () => {});
      stream.on("end", () => {
        perConnection.set(session.id, (perConnection.get(session.id) ?? 0) + 1);
        delivered.push({ at: Date.now(), rcptTo: session.envelope.rcptTo.map((r) => r.address) });
        callback(null, "2.0.0 Ok: queued");
      });
    },
    onClose(session) {
      perConnection.delete(session.id);
    },
  });
  server.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    host,
    port: (server.server.address() as { port: number }).port,
    connections,
    attempts,
    delivered,
    unblock: () => {
      blocked = false;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Peers on 127.0.0.<first>, <first+1>, … all on one free port (the rig's MAILROOM_MX_PORT). */
export async function startProviderPeers(behaviours: PeerBehaviour[], first = 30): Promise<ProviderPeer[]> {
  for (let tries = 0; ; tries++) {
    const peers: ProviderPeer[] = [];
    try {
      const lead = await startProviderPeer(`127.0.0.${first}`, 0, behaviours[0]!);
      peers.push(lead);
      for (let i = 1; i < behaviours.length; i++) peers.push(await startProviderPeer(`127.0.0.${first + i}`, lead.port, behaviours[i]!));
      return peers;
    } catch (err) {
      await Promise.all(peers.map((p) => p.stop()));
      if (tries >= 5) throw err;
    }
  }
}

/** The most MAIL FROM commands in any `windowMs` starting at or after `from`. */
export function mostAttemptsInWindow(attempts: PeerAttempt[], from: number, windowMs = 60_000): number {
  const times = attempts.map((a) => a.at).filter((t) => t >= from).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
