import type { Server, Socket } from "node:net";
import ipaddr from "ipaddr.js";
import type { SMTPServer, SMTPServerOptions } from "smtp-server";
import type { Config } from "../config";
import { MAX_MESSAGE_BYTES } from "../contract/email";
import { REPLY } from "../domain/submission/replies";
import { ConcurrentConnections } from "../inbound/smtp-limits";
import type { Logger } from "../logger";
import type { TlsMaterial } from "./tls-certificate";

/**
 * The submission server's two listeners (submission-server.ts), apart from
 * what a session does (session-steps.ts): the options both share, the
 * per-address cap of the implicit-TLS port from accept on, and the socket
 * settings of both.
 */

export function isLoopback(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range() === "loopback";
}

/** The host a client on this machine reaches a listener on: loopback for a wildcard address. */
export const reachableHost = (host: string): string => (host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host);

/** What both listeners share, the session's steps aside. */
export function listenerOptions(config: Pick<Config, "submission" | "delivery">, tls: TlsMaterial | undefined): SMTPServerOptions {
  const cfg = config.submission;
  return {
    name: config.delivery.heloName,
    banner: "Mailroom submission",
    logger: false,
    authMethods: ["PLAIN", "LOGIN"],
    // Checked per connection in onAuth: plain-text AUTH is allowed from loopback only.
    allowInsecureAuth: true,
    // Replies carry their own enhanced codes (replies.ts).
    hideENHANCEDSTATUSCODES: true,
    authRequiredMessage: REPLY.authRequired.text,
    maxAllowedUnauthenticatedCommands: 10,
    maxClients: cfg.maxClients,
    socketTimeout: cfg.idleTimeoutMs,
    // Stopping waits this long for sessions in progress, then closes them.
    closeTimeout: 3000,
    size: MAX_MESSAGE_BYTES,
    disableReverseLookup: true,
    ...(tls ? { key: tls.key, cert: tls.cert } : {}),
    disabledCommands: tls ? [] : ["STARTTLS"],
  };
}

/**
 * Port 465: the TLS handshake comes before onConnect, and smtp-server holds up to maxClients sockets in it.
 * The per-address cap applies from accept on here, so one host cannot fill that queue either. A socket
 * over the cap is closed before smtp-server sees it (it must never get a destroyed socket: Node 20
 * crashes wrapping one in TLS), and at once: nothing can be written before the handshake.
 */
export function capAcceptedPerAddress(net: Server, perAddress: number): void {
  const accepted = new ConcurrentConnections(perAddress);
  const smtpServerListeners = net.listeners("connection") as ((socket: Socket) => void)[];
  net.removeAllListeners("connection");
  net.on("connection", (socket: Socket) => {
    const key = accepted.admit(socket.remoteAddress ?? "");
    if (key === undefined) {
      socket.on("error", () => {});
      socket.destroy();
      return;
    }
    socket.once("close", () => accepted.release(key));
    for (const listener of smtpServerListeners) listener.call(net, socket);
  });
}

/** A listener's errors are logged; its sockets send each reply at once. */
export function tuneListener(s: SMTPServer, log: Logger): void {
  s.on("error", (err) => log.warn({ err }, "SMTP submission error"));
  // Replies are small writes answered by the client's next command: without this, Nagle's
  // algorithm and the peer's delayed ACK add ~40 ms to a message (bench:smtp).
  s.server.on("connection", (socket: Socket) => socket.setNoDelay(true));
}
