import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { hostOf, resolveDestinationAddresses, SsrfRefusedError, type ResolvedAddress, type Resolver } from "./ssrf-guard";

/**
 * One notification attempt over HTTP: SSRF-checked, pinned to the checked
 * address, no redirects followed, one deadline for the whole exchange, at
 * most the first 4 KB of the answer read (the attempt log keeps them; the
 * webhook record shows the first 1,000 characters), and its Retry-After.
 */

export const RESPONSE_BODY_MAX_CHARS = 1000;
/** The attempt log's excerpt (docs/contract.md §16); also enough bytes for 1,000 characters of UTF-8. */
export const RESPONSE_EXCERPT_MAX_BYTES = 4096;
const RESPONSE_READ_MAX_BYTES = RESPONSE_EXCERPT_MAX_BYTES;

export interface PostOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  resolver?: Resolver;
  /** Keep-alive agents; one pair per dispatcher. Defaults to fresh non-pooled sockets. */
  agents?: { http: http.Agent; https: https.Agent };
}

export interface AttemptResult {
  /** HTTP status, 0 when no HTTP answer came (refused, timeout, SSRF refusal, network error). */
  statusCode: number;
  /** First 1,000 characters of the answer. */
  body: string;
  /** The answer's first 4 KB as text (a character cut at the end is dropped). */
  bodyExcerpt: string;
  /** A 429 or 503 answer's Retry-After, in ms from now (seconds or an HTTP date; unbounded here). */
  retryAfterMs?: number;
  durationMs: number;
  /** Why there was no HTTP answer. */
  error?: string;
  startedAt: Date;
}

export function createAgents(maxSocketsPerHost: number): { http: http.Agent; https: https.Agent } {
  const opts = { keepAlive: true, maxSockets: maxSocketsPerHost, maxFreeSockets: maxSocketsPerHost, timeout: 60_000 };
  return { http: new http.Agent(opts), https: new https.Agent(opts) };
}

/**
 * A lookup that answers only the already-checked addresses, so that the
 * socket connects to one of exactly those (all of them when Node asks for
 * all, to try IPv6 and IPv4 in turn: `localhost` may be ::1 and 127.0.0.1).
 */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, addresses.map((a) => ({ address: a.address, family: a.family })));
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as unknown as LookupFunction;
}

function excerpt(text: string): string {
  if (text.length <= RESPONSE_BODY_MAX_CHARS) return text;
  return Array.from(text).slice(0, RESPONSE_BODY_MAX_CHARS).join("");
}

/** The first RESPONSE_EXCERPT_MAX_BYTES bytes as UTF-8, without a replacement character for a sequence cut at the end. */
function logExcerpt(buf: Buffer): string {
  const head = buf.subarray(0, RESPONSE_EXCERPT_MAX_BYTES);
  const text = head.toString("utf8");
  return head.length === buf.length || !text.endsWith("\uFFFD") ? text : text.slice(0, -1);
}

/** Retry-After as delay-seconds or an HTTP-date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().slice(0, 64);
  if (/^\d{1,9}$/.test(v)) return Number(v) * 1000;
  // An HTTP-date names its day first ("Sun, 06 Nov 1994 08:49:37 GMT"); Date.parse alone takes "-5" for a year.
  if (!/^[A-Za-z]{3,9},? /.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export async function postJson(
  urlText: string,
  body: string | Buffer,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<AttemptResult> {
  const startedAt = new Date();
  const t0 = performance.now();
  const done = (r: Omit<AttemptResult, "durationMs" | "startedAt" | "bodyExcerpt"> & { bodyExcerpt?: string }): AttemptResult => ({
    bodyExcerpt: r.body,
    ...r,
    durationMs: Math.round(performance.now() - t0),
    startedAt,
  });
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    return done({ statusCode: 0, body: "", error: "invalid URL" });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return done({ statusCode: 0, body: "", error: "not an http(s) URL" });

  let targets: ResolvedAddress[];
  try {
    targets = await resolveDestinationAddresses(url, { allowPrivate: options.allowPrivate, resolver: options.resolver });
  } catch (err) {
    const msg = err instanceof SsrfRefusedError ? `destination refused: ${err.message}` : (err as Error).message;
    return done({ statusCode: 0, body: "", error: msg });
  }

  const isHttps = url.protocol === "https:";
  const lib = isHttps ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    let statusCode = 0;
    const chunks: Buffer[] = [];
    let size = 0;
    let retryAfterMs: number | undefined;
    const finish = (r: Omit<AttemptResult, "durationMs" | "startedAt" | "bodyExcerpt"> & { bodyExcerpt?: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(r));
    };
    const answered = () => {
      const all = Buffer.concat(chunks);
      finish({ statusCode, body: excerpt(all.toString("utf8")), bodyExcerpt: logExcerpt(all), ...(retryAfterMs !== undefined && { retryAfterMs }) });
    };
    const req = lib.request({
      method: "POST",
      protocol: url.protocol,
      hostname: hostOf(url),
      port: url.port || (isHttps ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      agent: options.agents ? (isHttps ? options.agents.https : options.agents.http) : false,
      lookup: pinnedLookup(targets),
      // https://user:pass@host/ → HTTP Basic authentication, as browsers and curl do.
      ...(url.username && { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }),
      ...(isHttps && { servername: hostOf(url) }),
    });
    const timer = setTimeout(() => {
      // An answer whose body never ends still counts as that answer.
      if (statusCode) answered();
      else finish({ statusCode: 0, body: "", error: `timed out after ${options.timeoutMs} ms` });
      req.destroy();
    }, options.timeoutMs);
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (statusCode) return answered();
      finish({ statusCode: 0, body: "", error: err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message });
    });
    req.on("response", (res) => {
      statusCode = res.statusCode ?? 0;
      if (statusCode === 429 || statusCode === 503) retryAfterMs = parseRetryAfter(res.headers["retry-after"]);
      res.on("data", (chunk: Buffer) => {
        if (size >= RESPONSE_READ_MAX_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_READ_MAX_BYTES) {
          // Enough kept: stop reading a large answer (the socket is not reused).
          answered();
          res.destroy();
        }
      });
      res.on("end", answered);
      res.on("error", answered);
      res.on("aborted", answered);
    });
    req.end(body);
  });
}
