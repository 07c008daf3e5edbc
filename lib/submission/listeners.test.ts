import { EventEmitter } from "node:events";
import type { Server, Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { buildConfig } from "../config";
import { capAcceptedPerAddress, isLoopback, listenerOptions, reachableHost } from "./listeners";

/** A socket as the listener sees it: an address, destroy, close. */
function fakeSocket(remoteAddress: string) {
  const socket = Object.assign(new EventEmitter(), { remoteAddress, destroyed: false, destroy: () => (socket.destroyed = true) });
  return socket;
}

describe("the submission listeners", () => {
  it("takes loopback, IPv4-mapped included, for loopback, and nothing else", () => {
    expect(isLoopback("127.0.0.1")).toBe(true);
    expect(isLoopback("::1")).toBe(true);
    expect(isLoopback("::ffff:127.0.0.1")).toBe(true);
    expect(isLoopback("192.0.2.1")).toBe(false);
    expect(isLoopback("not an address")).toBe(false);
  });

  it("reaches a wildcard listener on loopback", () => {
    expect(reachableHost("0.0.0.0")).toBe("127.0.0.1");
    expect(reachableHost("::")).toBe("127.0.0.1");
    expect(reachableHost("192.0.2.5")).toBe("192.0.2.5");
  });

  it("offers STARTTLS only with a certificate, and takes the limits from the configuration", () => {
    const config = buildConfig({ MAILROOM_HELO_NAME: "mail.test", MAILROOM_SUBMISSION_MAX_CLIENTS: "7", MAILROOM_SUBMISSION_IDLE_TIMEOUT: "5s" });
    const plain = listenerOptions(config, undefined);
    expect(plain).toMatchObject({ name: "mail.test", maxClients: 7, socketTimeout: 5000, disabledCommands: ["STARTTLS"], authMethods: ["PLAIN", "LOGIN"] });
    expect(plain).not.toHaveProperty("cert");
    const tls = { cert: Buffer.from("c"), key: Buffer.from("k"), source: "self-signed" as const };
    expect(listenerOptions(config, tls)).toMatchObject({ disabledCommands: [], cert: tls.cert, key: tls.key });
  });

  it("caps accepted sockets per address before smtp-server sees them, and frees a place when one closes", () => {
    const server = new EventEmitter() as unknown as Server;
    const seen: string[] = [];
    server.on("connection", (socket: Socket) => seen.push(socket.remoteAddress!));
    capAcceptedPerAddress(server, 2);
    const [a, b, c] = [fakeSocket("192.0.2.1"), fakeSocket("192.0.2.1"), fakeSocket("192.0.2.1")];
    for (const s of [a, b, c, fakeSocket("192.0.2.2")]) server.emit("connection", s);
    expect(seen).toEqual(["192.0.2.1", "192.0.2.1", "192.0.2.2"]);
    expect([a.destroyed, b.destroyed, c.destroyed]).toEqual([false, false, true]);
    a.emit("close");
    server.emit("connection", fakeSocket("192.0.2.1"));
    expect(seen).toHaveLength(4);
  });
});
