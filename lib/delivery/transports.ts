import net from "node:net";
import { dnsResolver } from "../net/dns-resolver";
import { destinationKeysOf, destinationOf, type Destination } from "./destinations/destination";
import type { CopyShape, DestinationGate } from "./destinations/gate";
import { replySignalOf } from "./destinations/reply-signals";
import { refusedRangeOf } from "../net/address-ranges";
import type { SmtpAnswer } from "./classify";
import { SmtpClient, type SmtpClientOptions } from "./smtp-client";
import type { SmtpTarget } from "./smtp-connection";
import type { Egress } from "./egress/egress";
import type { TlsPolicies } from "./tls-policy/tls-policies";
import type { TlsVerdict } from "./tls-policy/tls-result";

/**
 * Where a message goes, by MAILROOM_DELIVERY: `sandbox` (the embedded MX on
 * loopback plays every recipient's server), `relay` (SMTP_RELAY_URL) or `mx`
 * (MX lookup per recipient domain, A fallback, STARTTLS when offered).
 */

export interface Envelope {
  from: string;
  to: string;
  raw: Buffer;
  /** The sending account: whose holds and turn apply (destinations/gate.ts). */
  accountId?: string;
  /** When the message was accepted (its scheduled time for a scheduled one), ms: the probe line's order (smtp-slots.ts). */
  acceptedAt?: number;
}

export interface TransportResult {
  answer: SmtpAnswer;
  /** The host that answered (or that we failed to reach). */
  mxHost: string;
  durationMs: number;
  /** What TLS was for the copy (tls-policy/tls-result.ts); absent when no session was tried. */
  tls?: TlsVerdict;
}

export interface Transport {
  readonly name: "sandbox" | "relay" | "mx";
  /** Sends each envelope (all of one recipient domain) and reports each outcome in order. Never throws. */
  sendAll(domain: string, envelopes: Envelope[]): Promise<TransportResult[]>;
  /**
   * Jobs held by peers that do not answer (stalled transactions, requests waiting behind them): the
   * deliver loop may run as many more jobs (docs/adr/0321), and an account as many more beside its
   * turn's cap (`account`'s only; docs/adr/0325).
   */
  heldByStalls(account?: string): number;
  close(): void;
}

/** The SMTP client's options: pool size, per-phase timeouts, stall and slot-wait times (lib/delivery/smtp-client.ts); the destinations' gate. */
export type TransportOptions = SmtpClientOptions & { gate?: DestinationGate };

/**
 * One copy through the gate (destinations/gate.ts): held or throttled, it is answered at once without a
 * connection (`heldUntil`); else sent, and the reply told to the gate. A suspension reply (a block list)
 * defers the recipient to the suspension's end instead of failing it: the refusal is of us, not of it.
 */
async function throughGate(
  gate: DestinationGate | undefined,
  domain: string,
  destination: Destination,
  envelope: Envelope,
  send: (shape: CopyShape) => Promise<TransportResult>,
): Promise<TransportResult> {
  if (!gate) return send({});
  const keys = destinationKeysOf(domain, destination);
  const admission = await gate.admit(keys, destination, envelope.accountId ?? "");
  if (!admission.ok) return { answer: { errorCode: "EHELD", response: admission.reason, heldUntil: admission.until }, mxHost: "", durationMs: 0 };
  let result: TransportResult;
  try {
    result = await send(admission.shape);
  } finally {
    admission.release();
  }
  gate.observe(keys, destination, result.answer);
  if (replySignalOf(result.answer) !== "suspend") return result;
  return { ...result, answer: { ...result.answer, heldUntil: gate.suspendedUntil(destination.key), tried: true } };
}

/** A fixed next hop: the sandbox MX or the relay. */
export function createFixedTransport(name: "sandbox" | "relay", target: SmtpTarget, options: TransportOptions): Transport {
  const client = new SmtpClient(options);
  // The relay is one destination, whatever the recipient domain; the sandbox MX is ours, never shaped.
  const gate = name === "relay" ? options.gate : undefined;
  const destination = destinationOf("", "relay");
  return {
    name,
    async sendAll(domain, envelopes) {
      return Promise.all(
        envelopes.map((e) =>
          throughGate(gate, domain, destination, e, async (shape) => {
            const r = await client.send({ ...target, requireTls: target.requireTls || shape.requireTls }, { from: e.from, to: e.to, acceptedAt: e.acceptedAt }, e.raw, undefined, e.accountId, shape);
            return { answer: r.answer, durationMs: r.durationMs, mxHost: `${target.host}:${target.port}`, ...(r.tls && { tls: r.tls }) };
          }),
        ),
      );
    },
    heldByStalls: (account) => client.heldByStalls(account),
    close: () => client.close(),
  };
}

/** smtp://user:pass@host:port or smtps://... */
export function parseRelayUrl(url: string): SmtpTarget {
  const u = new URL(url);
  if (u.protocol !== "smtp:" && u.protocol !== "smtps:") throw new Error(`SMTP_RELAY_URL must start with smtp:// or smtps://, got ${u.protocol}`);
  const secure = u.protocol === "smtps:";
  return {
    host: u.hostname.replace(/^\[|\]$/g, ""),
    port: u.port ? Number(u.port) : secure ? 465 : 25,
    secure,
    auth: u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : undefined,
  };
}

/** The DNS answers MX delivery needs; tests supply their own (internet DNS is outside). */
export interface MxResolver {
  resolveMx(domain: string): Promise<{ exchange: string; priority: number }[]>;
  resolve4(host: string): Promise<string[]>;
  resolve6?(host: string): Promise<string[]>;
}

// A burst of copies to one domain asks its MX and addresses once, kept a minute (docs/adr/0806).
export const systemResolver: MxResolver = dnsResolver();

interface Hop {
  host: string;
  address: string;
}

const dnsMissing = (err: unknown) => ["ENODATA", "ENOTFOUND", "ENODOMAIN"].includes((err as { code?: string }).code ?? "");

/** The error code of a destination whose every mail server is on a refused address (see resolveHops). */
export const PRIVATE_MX_CODE = "EPRIVATEMX";

/**
 * MX hosts by preference, each resolved to addresses; the domain's own A
 * record when it has no MX (RFC 5321 §5.1). Unless `allowPrivate`, addresses
 * that the webhook SSRF guard refuses too (loopback, private, link-local,
 * reserved...: lib/net/address-ranges.ts) are dropped, and a domain left with
 * none fails with PRIVATE_MX_CODE and a message that says why.
 */
export async function resolveHops(resolver: MxResolver, domain: string, options: { allowPrivate?: boolean } = {}): Promise<Hop[]> {
  let hosts: string[];
  try {
    const mx = await resolver.resolveMx(domain);
    hosts = [...mx].sort((a, b) => a.priority - b.priority).map((m) => m.exchange);
    if (hosts.length === 1 && (hosts[0] === "" || hosts[0] === ".")) {
      throw Object.assign(new Error(`${domain} accepts no mail (null MX)`), { code: "ENODOMAIN" });
    }
  } catch (err) {
    if (!dnsMissing(err) || (err as { code?: string }).code === "ENODOMAIN") throw err;
    if ((err as { code?: string }).code === "ENOTFOUND") throw err;
    hosts = [domain];
  }
  const hops: Hop[] = [];
  const refused: Hop[] = [];
  for (const host of hosts) {
    const addresses = net.isIP(host)
      ? [host]
      : await resolver.resolve4(host).catch(async () => (resolver.resolve6 ? resolver.resolve6(host).catch(() => []) : []));
    for (const address of addresses) {
      if (!options.allowPrivate && refusedRangeOf(address) !== undefined) refused.push({ host, address });
      else hops.push({ host, address });
    }
  }
  if (hops.length === 0 && refused.length > 0) {
    const refusedHosts = [...new Set(refused.map((h) => h.host))];
    const list = [...new Set(refused.map((h) => h.address))].slice(0, 4).join(", ");
    const what = refusedHosts.length === 1 ? `MX host ${refusedHosts[0]} resolves` : `The MX hosts of ${domain} (${refusedHosts.slice(0, 4).join(", ")}) resolve`;
    throw Object.assign(new Error(`${what} only to private/reserved addresses (${list}); set MAILROOM_ALLOW_PRIVATE_MX=true to allow`), {
      code: PRIVATE_MX_CODE,
    });
  }
  if (hops.length === 0) throw Object.assign(new Error(`No address for the mail servers of ${domain}`), { code: "ENOTFOUND" });
  return hops;
}

export function createMxTransport(
  options: TransportOptions & { resolver?: MxResolver; dnsServers?: string[]; port?: number; allowPrivate?: boolean; tlsPolicies?: TlsPolicies; egress?: Egress },
): Transport {
  const client = new SmtpClient(options);
  const resolver = options.resolver ?? (options.dnsServers ? dnsResolver({ servers: options.dnsServers }) : systemResolver);
  const port = options.port ?? 25;
  return {
    name: "mx",
    async sendAll(domain, envelopes) {
      let hops: Hop[];
      try {
        hops = await resolveHops(resolver, domain, { allowPrivate: options.allowPrivate ?? false });
      } catch (err) {
        const e = err as { code?: string; message?: string };
        return envelopes.map(() => ({ answer: { errorCode: e.code ?? "EDNS", response: e.message }, mxHost: "", durationMs: 0 }));
      }
      // Domains whose MX hosts are one provider's share its destination (destinations/destination.ts).
      const destination = destinationOf(domain, [...new Set(hops.map((h) => h.host))]);
      // MTA-STS and DANE (docs/adr/0326): which hosts may be used, and the check each session must pass.
      const plan = options.tlsPolicies ? await options.tlsPolicies.plan(domain, hops) : undefined;
      if (plan && !plan.ok) {
        const t = plan.tls;
        options.tlsPolicies?.sessions?.add({ policyDomain: domain, policyType: "sts", policyString: t.policyString, mxHost: t.mxHost, failure: { resultType: "validation-failure", additionalInformation: plan.reason }, at: Date.now() });
        const tls: TlsVerdict = { policy: "mta-sts", mode: "enforce", verified: false, failure: plan.reason };
        return envelopes.map(() => ({ answer: { errorCode: "ETLSPOLICY", enhancedCode: "4.7.5", response: plan.reason }, mxHost: t.mxHost, durationMs: 0, tls }));
      }
      const planned = plan?.hops ?? hops.map((h) => ({ ...h, tls: undefined }));
      const family = net.isIP(planned[0]?.address ?? hops[0]!.address);
      return Promise.all(
        envelopes.map(async (e) => {
          // The source address of the account's egress pool for this provider, or a wait past its warm-up caps (egress/egress.ts).
          const source = options.egress?.choose(e.accountId ?? "", destination.key, family);
          if (source && !source.ok) return { answer: { errorCode: "EHELD", response: source.reason, heldUntil: source.until }, mxHost: "", durationMs: 0 };
          let tried = false;
          try {
            return await throughGate(options.gate, domain, destination, e, async (shape) => {
              let last: TransportResult | undefined;
              // Next MX only when this one could not be reached (or had no free slot); any SMTP reply is the
              // answer, and so is whatever happened once MAIL FROM was sent (a timeout at the final dot may
              // even have delivered the message there).
              for (const hop of planned) {
                if (source && net.isIP(hop.address) !== family) continue;
                const target = { host: hop.address, port, secure: false, servername: hop.host, requireTls: shape.requireTls, tls: hop.tls, localAddress: source?.address, heloName: source?.heloName };
                const r = await client.send(target, { from: e.from, to: e.to, acceptedAt: e.acceptedAt }, e.raw, undefined, e.accountId, shape);
                last = { answer: r.answer, durationMs: r.durationMs, mxHost: hop.host, ...(r.tls && { tls: r.tls }) };
                tried ||= !r.beforeTransaction;
                // A connection rate spent is the destination's, whichever of its hosts: no other host is tried.
                if (r.answer.responseCode || !r.beforeTransaction || r.answer.heldUntil !== undefined) break;
              }
              return last!;
            });
          } finally {
            source?.settle(tried);
          }
        }),
      );
    },
    heldByStalls: (account) => client.heldByStalls(account),
    close: () => client.close(),
  };
}
