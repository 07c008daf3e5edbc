import type { Readable } from "node:stream";
import ipaddr from "ipaddr.js";
import type { SMTPServer, SMTPServerSession } from "smtp-server";
import { concatInTurns } from "../bytes-in-turns";

/**
 * Limits of the SMTP servers Mailroom runs (the inbound server, the sandbox
 * MX): a bounded message reader and a per-address connection rate. Pure
 * apart from the stream; no unbounded buffering anywhere.
 */

/**
 * Reads a DATA stream, keeping at most `maxBytes`: past that it goes on
 * draining (SMTP needs the whole DATA read before the reply) but keeps
 * nothing, and reports `exceeded` so the caller answers 552.
 */
export function readBoundedMessage(stream: Readable & { sizeExceeded?: boolean }, maxBytes: number): Promise<{ raw: Buffer; exceeded: boolean }> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let bytes = 0;
    let exceeded = false;
    stream.on("data", (c: Buffer) => {
      if (exceeded) return;
      bytes += c.length;
      if (bytes > maxBytes) {
        exceeded = true;
        chunks = [];
        return;
      }
      chunks.push(c);
    });
    stream.on("error", reject);
    stream.on("end", () => {
      exceeded ||= Boolean(stream.sizeExceeded);
      if (exceeded) resolve({ raw: Buffer.alloc(0), exceeded });
      else concatInTurns(chunks, bytes).then((raw) => resolve({ raw, exceeded }), reject);
    });
  });
}

/** The key an address is counted under: the address itself for IPv4, its /64 for IPv6 (one host holds a whole /64). */
export function rateKeyOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  let ip = ipaddr.parse(address);
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  if (ip.kind() === "ipv4") return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(":")}::/64`;
}

/**
 * Connections per client address per minute (sliding over two fixed
 * windows, like a leaky counter). Memory is bounded: at most `maxKeys`
 * addresses are remembered; beyond that the oldest window is forgotten
 * (an attacker rotating addresses is then held by maxClients alone).
 */
export class ConnectionRate {
  private current = new Map<string, number>();
  private previous = new Map<string, number>();
  private windowStart = 0;

  constructor(
    private readonly perMinute: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Counts a connection from `address`; false when it is over the rate (refuse it). */
  allow(address: string, nowMs: number = Date.now()): boolean {
    const window = 60_000;
    if (nowMs - this.windowStart >= window) {
      const elapsedWindows = Math.floor((nowMs - this.windowStart) / window);
      this.previous = elapsedWindows === 1 ? this.current : new Map();
      this.current = new Map();
      this.windowStart = nowMs - ((nowMs - this.windowStart) % window);
      if (elapsedWindows > 1) this.windowStart = nowMs;
    }
    if (this.current.size >= this.maxKeys) {
      this.previous = this.current;
      this.current = new Map();
    }
    const key = rateKeyOf(address);
    const weight = 1 - (nowMs - this.windowStart) / window;
    const estimate = (this.current.get(key) ?? 0) + (this.previous.get(key) ?? 0) * weight;
    if (estimate >= this.perMinute) return false;
    this.current.set(key, (this.current.get(key) ?? 0) + 1);
    return true;
  }
}

/**
 * Open connections per client address (IPv6: per /64), at most `perAddress`
 * at a time: one host cannot hold every slot of a server's maxClients. Pure
 * bookkeeping: the caller opens a connection it admits and closes it once.
 * Memory is bounded by the connections open: an address leaves the map when
 * its last connection closes.
 */
export class ConcurrentConnections {
  private open = new Map<string, number>();

  constructor(private readonly perAddress: number) {}

  /** Admits a connection from `address` (and counts it) unless that address already has `perAddress` open; returns the key to release, or undefined when refused. */
  admit(address: string): string | undefined {
    const key = rateKeyOf(address);
    const count = this.open.get(key) ?? 0;
    if (count >= this.perAddress) return undefined;
    this.open.set(key, count + 1);
    return key;
  }

  /** Releases a connection admitted under `key`. */
  release(key: string): void {
    const count = this.open.get(key) ?? 0;
    if (count <= 1) this.open.delete(key);
    else this.open.set(key, count - 1);
  }

  /** Open connections of an address (its key's). */
  countOf(address: string): number {
    return this.open.get(rateKeyOf(address)) ?? 0;
  }

  /** Addresses with a connection open. */
  get size(): number {
    return this.open.size;
  }
}

/**
 * The live connection of a session on one of `servers`, undefined once it
 * has closed: a session whose socket closed before onConnect ran has had its
 * onClose already, and must not take a slot it would never give back. At
 * most maxClients per server to look through.
 */
export function openConnectionOf(servers: readonly (SMTPServer | undefined)[], session: SMTPServerSession): { session: SMTPServerSession } | undefined {
  for (const server of servers) {
    if (!server) continue;
    for (const c of server.connections as Set<{ session: SMTPServerSession }>) if (c.session === session) return c;
  }
  return undefined;
}

/**
 * The byte budgets (docs/adr/0807) this server found spent in the current
 * UTC hour: a message refused with 452 at the end of DATA marks its client
 * address or account, and the next transaction of that address (at MAIL) or
 * recipient of that account (at RCPT) is refused before its DATA is sent.
 * The counters in the database decide; this only answers earlier. Memory is
 * bounded: at most `maxKeys` remembered (past that, nothing new is), and a
 * new hour forgets them all.
 */
export class SpentBudgets {
  private hour = -1;
  private spent = new Set<string>();

  constructor(private readonly maxKeys = 10_000) {}

  private current(nowMs: number): Set<string> {
    const hour = Math.floor(nowMs / 3_600_000);
    if (hour !== this.hour) {
      this.hour = hour;
      this.spent = new Set();
    }
    return this.spent;
  }

  note(scope: "address" | "account", key: string, nowMs: number = Date.now()): void {
    const spent = this.current(nowMs);
    if (spent.size < this.maxKeys) spent.add(`${scope}:${key}`);
  }

  isSpent(scope: "address" | "account", key: string, nowMs: number = Date.now()): boolean {
    return this.current(nowMs).has(`${scope}:${key}`);
  }
}
