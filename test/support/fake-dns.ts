import dgram from "node:dgram";
import net from "node:net";
import dnsPacket, { type Answer, type Packet, type TlsaData } from "dns-packet";

/**
 * A small DNS server on 127.0.0.1 for a fake internet (MAILROOM_DNS_SERVERS):
 * it answers MX, A, AAAA, TXT, CNAME, PTR and TLSA questions from a table the test
 * sets and changes while it runs, over UDP and TCP on the same port; a name
 * not in the table is NXDOMAIN, a name without records of the type asked is
 * an empty answer (NODATA). CNAMEs are followed within the table. A zone
 * marked `authenticated` answers with the AD bit set (what a validating
 * resolver says of DNSSEC-signed data: the place for DANE's TLSA lookups).
 * Every question is recorded.
 */

export interface MxRecord {
  exchange: string;
  priority: number;
}

export interface ZoneEntry {
  MX?: MxRecord[];
  A?: string[];
  AAAA?: string[];
  /** Each record a string or its list of character strings. */
  TXT?: (string | string[])[];
  CNAME?: string;
  /** Names of an address's reverse entry (`1.0.0.127.in-addr.arpa`). */
  PTR?: string[];
  TLSA?: TlsaData[];
  /** Answers for this name carry the AD bit (DNSSEC-validated data). */
  authenticated?: boolean;
}

export interface FakeDns {
  /** `127.0.0.1:port`, for MAILROOM_DNS_SERVERS. */
  address: string;
  port: number;
  /** Sets (replaces) the records of a name. */
  set(name: string, entry: ZoneEntry): void;
  /** Adds records to a name (its other records kept). */
  add(name: string, entry: ZoneEntry): void;
  remove(name: string): void;
  /** A domain whose MX hosts are `hosts` (in order of preference), each with its A record. */
  mx(domain: string, hosts: { name: string; address: string }[]): void;
  questions: { name: string; type: string; transport: "udp" | "tcp" }[];
  stop(): Promise<void>;
}

const MAX_TCP_MESSAGE = 65_535;
const UDP_LIMIT = 512;

export async function startFakeDns(options: { ttl?: number } = {}): Promise<FakeDns> {
  const ttl = options.ttl ?? 1;
  const zone = new Map<string, ZoneEntry>();
  const questions: FakeDns["questions"] = [];
  const key = (name: string) => name.toLowerCase().replace(/\.$/, "");

  function answer(query: Packet, transport: "udp" | "tcp"): Buffer {
    const question = query.questions?.[0];
    const reply: Packet = {
      type: "response",
      id: query.id,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | dnsPacket.AUTHORITATIVE_ANSWER,
      questions: query.questions,
      answers: [],
    };
    if (!question) return dnsPacket.encode({ ...reply, rcode: "FORMERR" } as Packet);
    questions.push({ name: question.name, type: question.type, transport });
    const found = lookup(question.name, question.type);
    if (!found) {
      reply.flags = reply.flags! | 3; // RCODE 3: NXDOMAIN
    } else {
      reply.answers = found.answers;
      if (found.authenticated) reply.flags = reply.flags! | dnsPacket.AUTHENTIC_DATA;
    }
    let out = dnsPacket.encode(reply);
    if (transport === "udp" && out.length > UDP_LIMIT) {
      // Too long for UDP: truncated, the resolver asks again over TCP.
      out = dnsPacket.encode({ ...reply, answers: [], flags: reply.flags! | dnsPacket.TRUNCATED_RESPONSE });
    }
    return out;
  }

  /** The answers for a question, following CNAMEs in the table; undefined when the name is unknown. */
  function lookup(name: string, type: string): { answers: Answer[]; authenticated: boolean } | undefined {
    const answers: Answer[] = [];
    let current = name;
    let authenticated = true;
    for (let hops = 0; hops < 8; hops++) {
      const entry = zone.get(key(current));
      if (!entry) return hops === 0 ? undefined : { answers, authenticated: false };
      authenticated &&= entry.authenticated === true;
      if (entry.CNAME && type !== "CNAME") {
        answers.push({ type: "CNAME", name: current, ttl, data: entry.CNAME });
        current = entry.CNAME;
        continue;
      }
      answers.push(...recordsOf(current, type, entry));
      return { answers, authenticated };
    }
    return { answers, authenticated: false };
  }

  function recordsOf(name: string, type: string, entry: ZoneEntry): Answer[] {
    switch (type) {
      case "MX":
        return (entry.MX ?? []).map((m) => ({ type: "MX", name, ttl, data: { exchange: m.exchange, preference: m.priority } }));
      case "A":
        return (entry.A ?? []).map((a) => ({ type: "A", name, ttl, data: a }));
      case "AAAA":
        return (entry.AAAA ?? []).map((a) => ({ type: "AAAA", name, ttl, data: a }));
      case "TXT":
        return (entry.TXT ?? []).map((t) => ({ type: "TXT", name, ttl, data: Array.isArray(t) ? t : [t] }));
      case "CNAME":
        return entry.CNAME ? [{ type: "CNAME", name, ttl, data: entry.CNAME }] : [];
      case "PTR":
        return (entry.PTR ?? []).map((p) => ({ type: "PTR", name, ttl, data: p }));
      case "TLSA":
        return (entry.TLSA ?? []).map((t) => ({ type: "TLSA", name, ttl, data: t }));
      default:
        return [];
    }
  }

  const udp = dgram.createSocket("udp4");
  udp.on("message", (msg, rinfo) => {
    let query: Packet;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return; // not DNS: dropped, as a server would
    }
    udp.send(answer(query, "udp"), rinfo.port, rinfo.address);
  });
  udp.on("error", () => {});
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
  const port = udp.address().port;

  const sockets = new Set<net.Socket>();
  const tcp = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let buffered = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2) {
        const length = buffered.readUInt16BE(0);
        if (length > MAX_TCP_MESSAGE) return void socket.destroy();
        if (buffered.length < 2 + length) break;
        const msg = buffered.subarray(2, 2 + length);
        buffered = buffered.subarray(2 + length);
        let query: Packet;
        try {
          query = dnsPacket.decode(msg);
        } catch {
          return void socket.destroy();
        }
        const out = answer(query, "tcp");
        const framed = Buffer.alloc(2 + out.length);
        framed.writeUInt16BE(out.length, 0);
        out.copy(framed, 2);
        socket.write(framed);
      }
    });
  });
  // TCP on the UDP port; if another listener holds it, DNS over TCP is simply unavailable.
  await new Promise<void>((resolve) => {
    tcp.once("error", () => resolve());
    tcp.listen(port, "127.0.0.1", () => resolve());
  });

  return {
    address: `127.0.0.1:${port}`,
    port,
    questions,
    set: (name, entry) => void zone.set(key(name), { ...entry }),
    add(name, entry) {
      const old = zone.get(key(name)) ?? {};
      zone.set(key(name), {
        ...old,
        ...entry,
        MX: [...(old.MX ?? []), ...(entry.MX ?? [])],
        A: [...(old.A ?? []), ...(entry.A ?? [])],
        AAAA: [...(old.AAAA ?? []), ...(entry.AAAA ?? [])],
        TXT: [...(old.TXT ?? []), ...(entry.TXT ?? [])],
        TLSA: [...(old.TLSA ?? []), ...(entry.TLSA ?? [])],
      });
    },
    remove: (name) => void zone.delete(key(name)),
    mx(domain, hosts) {
      zone.set(key(domain), { ...zone.get(key(domain)), MX: hosts.map((h, i) => ({ exchange: h.name, priority: 10 * (i + 1) })) });
      for (const h of hosts) zone.set(key(h.name), { ...zone.get(key(h.name)), A: [h.address] });
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      await new Promise<void>((resolve) => udp.close(() => resolve()));
    },
  };
}
