import dgram from "node:dgram";
import dns from "node:dns";
import net from "node:net";
import dnsPacket, { type Packet } from "dns-packet";

/**
 * TLSA lookups for DANE (RFC 7672), with the resolver's DNSSEC verdict:
 * node:dns does not expose the AD bit, so the query is ours (dns-packet, RD
 * and AD set, EDNS0 with DO). As Postfix does with a local validating
 * resolver, the AD bit is trusted: only point MAILROOM_DNS_SERVERS (or the
 * system's resolver) at one you run. UDP, then TCP when the answer is
 * truncated; every reply is bounded (65,535 bytes) and timed.
 */

export interface TlsaAnswer {
  /** The resolver validated the answer (AD): only then may DANE use it. */
  secure: boolean;
  /** NOERROR with records, NODATA or NXDOMAIN (no records), or the failure's rcode. */
  rcode: string;
  records: { usage: number; selector: number; matchingType: number; data: Buffer }[];
  /** Seconds the answer may be kept (the smallest record TTL). */
  ttl: number;
}

export type TlsaLookup = (host: string, port?: number) => Promise<TlsaAnswer>;

const MAX_MESSAGE = 65_535;

/** "127.0.0.1:5353", "[::1]:53", "10.0.0.1" → host and port. */
export function parseServer(server: string): { host: string; port: number } {
  if (server.startsWith("[")) {
    const end = server.indexOf("]");
    const port = server.slice(end + 1).startsWith(":") ? Number(server.slice(end + 2)) : 53;
    return { host: server.slice(1, end), port };
  }
  const colon = server.lastIndexOf(":");
  if (colon > 0 && server.indexOf(":") === colon) return { host: server.slice(0, colon), port: Number(server.slice(colon + 1)) };
  return { host: server, port: 53 };
}

function query(name: string): Packet {
  return {
    type: "query",
    id: Math.floor(Math.random() * 65_535),
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.AUTHENTIC_DATA,
    questions: [{ type: "TLSA", name }],
    additionals: [{ type: "OPT", name: ".", udpPayloadSize: 1232, flags: dnsPacket.DNSSEC_OK } as never],
  };
}

function overUdp(server: { host: string; port: number }, packet: Packet, timeoutMs: number): Promise<Packet> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(net.isIPv6(server.host) ? "udp6" : "udp4");
    const timer = setTimeout(() => done(new Error(`DNS: no answer from ${server.host}:${server.port} in ${timeoutMs} ms`)), timeoutMs);
    const done = (err: Error | undefined, reply?: Packet) => {
      clearTimeout(timer);
      socket.close();
      if (err) reject(err);
      else resolve(reply!);
    };
    socket.on("error", (err) => done(err));
    socket.on("message", (msg) => {
      let reply: Packet;
      try {
        reply = dnsPacket.decode(msg);
      } catch {
        return; // not DNS: wait for the real answer or the timeout
      }
      if (reply.id === packet.id) done(undefined, reply);
    });
    socket.send(dnsPacket.encode(packet), server.port, server.host);
  });
}

function overTcp(server: { host: string; port: number }, packet: Packet, timeoutMs: number): Promise<Packet> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: server.host, port: server.port });
    let buffered = Buffer.alloc(0);
    const timer = setTimeout(() => done(new Error(`DNS: no TCP answer from ${server.host}:${server.port} in ${timeoutMs} ms`)), timeoutMs);
    const done = (err: Error | undefined, reply?: Packet) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(reply!);
    };
    socket.on("error", (err) => done(err));
    socket.on("connect", () => socket.write(dnsPacket.streamEncode(packet)));
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length > MAX_MESSAGE + 2) return done(new Error("DNS: TCP answer over 65,535 bytes"));
      if (buffered.length < 2 || buffered.length < 2 + buffered.readUInt16BE(0)) return;
      try {
        done(undefined, dnsPacket.streamDecode(buffered));
      } catch (err) {
        done(err as Error);
      }
    });
  });
}

/** On the given servers (MAILROOM_DNS_SERVERS), else the system's; each tried in turn. */
export function tlsaLookupOn(servers: string[] | undefined, timeoutMs = 3000): TlsaLookup {
  return async (host, port = 25) => {
    const name = `_${port}._tcp.${host}`;
    const list = (servers && servers.length > 0 ? servers : dns.getServers()).map(parseServer);
    let lastError: unknown = new Error("DNS: no server to ask");
    for (const server of list) {
      try {
        const packet = query(name);
        let reply = await overUdp(server, packet, timeoutMs);
        if ((reply.flags ?? 0) & dnsPacket.TRUNCATED_RESPONSE) reply = await overTcp(server, packet, timeoutMs);
        return answerOf(reply);
      } catch (err) {
        lastError = err;
      }
    }
    throw lastError;
  };
}

function answerOf(reply: Packet): TlsaAnswer {
  const rcode = (reply as { rcode?: string }).rcode ?? "NOERROR";
  const secure = ((reply.flags ?? 0) & dnsPacket.AUTHENTIC_DATA) !== 0;
  const records: TlsaAnswer["records"] = [];
  let ttl = 3600;
  for (const a of reply.answers ?? []) {
    // The resolver followed any CNAME: every TLSA record of the answer is the name's.
    if (a.type !== "TLSA") continue;
    const data = a.data as { usage: number; selector: number; matchingType: number; certificate: Buffer };
    records.push({ usage: data.usage, selector: data.selector, matchingType: data.matchingType, data: Buffer.from(data.certificate) });
    ttl = Math.min(ttl, a.ttl ?? 3600);
  }
  return { secure, rcode, records, ttl };
}
