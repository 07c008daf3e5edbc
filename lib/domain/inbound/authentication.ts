import { createRequire } from "node:module";
import { authenticate, type DNSResolver } from "mailauth";
import { Headers } from "@zone-eu/mailsplit";
import addressparser from "nodemailer/lib/addressparser";
import { rawSlices, SLICE_BYTES } from "./slices";
import { authenticateOnWorker, type MailauthVerdicts } from "./authentication-pool";

/**
 * SPF, DKIM and DMARC of a received message (docs/contract.md §13.4), bounded
 * (docs/adr/0808): at most MAX_VERIFIED_SIGNATURES DKIM signatures are
 * verified, those whose d= aligns with the From domain first, since mailauth
 * hashes the whole body once per distinct canonicalisation and length (1,990
 * signatures with their own l= cost 100 s of CPU). A large message is
 * authenticated on a worker thread that is terminated past its CPU budget or
 * its deadline; a small one (its cost bounded by its size and the selection)
 * on the event loop, in slices. DKIM is `pass` only for a signature aligned
 * with the one From; DMARC is `permerror` unless there is exactly one From.
 */

export type Authentication = { SPF: string; DKIM: string; DMARC: string };

export interface AuthenticationInput {
  raw: Buffer;
  envelope: { mailFrom: string; remoteIp: string; helo: string };
  /** DNS answers for SPF, DKIM and DMARC (tests; by default the system's resolver). */
  resolver?: DNSResolver;
  /** Host name this server receives as (SPF's receiving MTA). */
  mta: string;
}

export const MAX_VERIFIED_SIGNATURES = 10;
/** The SMTP server refuses more than 256 KiB of header per part (docs/adr/0802); this only guards older rows. */
const MAX_HEADER_BYTES = 512 * 1024;
/** From this size on the work goes to a worker: 10 body hashes of 1 MiB are about 35 ms, in slices. */
export const WORKER_MIN_BYTES = 1024 * 1024;
/** Worker CPU (its event loop's active time) before it is terminated. */
export const AUTH_CPU_BUDGET_MS = 2_000;
/** Wall time, DNS waits included, before the result is temperror (and a worker terminated). */
export const AUTH_DEADLINE_MS = 15_000;

const TEMPERROR: Authentication = { SPF: "temperror", DKIM: "temperror", DMARC: "temperror" };

interface MailauthTools {
  parseDkimHeaders(line: Buffer): { parsed?: { d?: { value?: unknown } } };
  getAlignment(fromDomain: string, domains: string[]): false | { domain: string };
}
// eslint-disable-next-line no-restricted-syntax -- a memo of loaded code (mailauth), the same for every context
let tools: MailauthTools | undefined;
// mailauth's own tag-list parser and alignment (organisational domains by tldts), not exported from its index.
const mailauthTools = () => (tools ??= createRequire(import.meta.url)("mailauth/lib/tools") as MailauthTools);

/** Where the body starts, as mailauth finds it (after the first empty line); undefined when no empty line comes before `limit`. */
function bodyStart(raw: Buffer, limit: number): number | undefined {
  for (let i = raw.indexOf(0x0a); i >= 0 && i < limit; i = raw.indexOf(0x0a, i + 1)) {
    if (raw[i + 1] === 0x0a) return i + 2;
    if (raw[i + 1] === 0x0d && raw[i + 2] === 0x0a) return i + 3;
  }
  return undefined;
}

export interface SignatureSelection {
  /** The message mailauth verifies: the same bytes when nothing was dropped, else the header rebuilt without the other signatures. */
  message: Buffer;
  fromFields: number;
  signatures: number;
  verified: number;
}

/**
 * The message with at most `max` DKIM-Signature fields: those whose d= aligns
 * (relaxed: the same organisational domain) with the From domain first, then
 * the others, each in header order; the body untouched. Undefined when the
 * header block is over MAX_HEADER_BYTES. Linear in the header block.
 */
export function selectSignatures(raw: Buffer, max = MAX_VERIFIED_SIGNATURES): SignatureSelection | undefined {
  const end = bodyStart(raw, MAX_HEADER_BYTES) ?? (raw.length <= MAX_HEADER_BYTES ? raw.length : undefined);
  if (end === undefined) return undefined;
  const headers = new Headers(raw.subarray(0, end));
  const lines = headers.getList();
  const fromLines = lines.filter((l) => l.key === "from");
  const fromDomain = fromLines.length === 1 ? singleAddressDomain(fieldValue(fromLines[0]!.line)) : undefined;
  const signatures = lines.filter((l) => l.key === "dkim-signature");
  if (signatures.length <= max) return { message: raw, fromFields: fromLines.length, signatures: signatures.length, verified: signatures.length };
  const { parseDkimHeaders, getAlignment } = mailauthTools();
  const aligned = (line: string) => {
    const d = parseDkimHeaders(Buffer.from(line, "binary")).parsed?.d?.value;
    return fromDomain !== undefined && typeof d === "string" && d !== "" && getAlignment(fromDomain, [d]) !== false;
  };
  const first = new Set(signatures.filter((l) => aligned(l.line)));
  const kept = new Set([...first, ...signatures.filter((l) => !first.has(l))].slice(0, max));
  const head = lines.filter((l) => l.key !== "dkim-signature" || kept.has(l)).map((l) => l.line);
  if (headers.mbox) head.unshift(headers.mbox);
  else if (headers.http) head.unshift(headers.http);
  const message = Buffer.concat([Buffer.from(`${head.join("\r\n")}\r\n\r\n`, "binary"), raw.subarray(end)]);
  return { message, fromFields: fromLines.length, signatures: signatures.length, verified: kept.size };
}

const fieldValue = (line: string) => line.slice(line.indexOf(":") + 1).trim();

/** The domain of a From field that holds exactly one mailbox. */
function singleAddressDomain(value: string): string | undefined {
  const list = addressparser(value, { flatten: true });
  const address = list.length === 1 ? list[0]!.address : undefined;
  return address && address.includes("@") ? address.slice(address.lastIndexOf("@") + 1).toLowerCase() : undefined;
}

/**
 * DKIM: `pass` when a signature aligned with the one From passes; `policy`
 * (RFC 8601 §2.7.1) when only unaligned ones pass; else the first verified
 * signature's result. DMARC: `permerror` unless exactly one From field holds
 * exactly one address (RFC 7489 §6.6.1), else mailauth's.
 */
export function verdicts(v: MailauthVerdicts, fromFields: number, hasIp: boolean): Authentication {
  const oneFrom = fromFields === 1 && v.fromAddresses === 1;
  const passes = v.dkim.filter((d) => d.result === "pass");
  const first = v.dkim.find((d) => d.aligned) ?? v.dkim[0];
  const dkim = passes.some((d) => d.aligned && oneFrom) ? "pass" : passes.length > 0 ? "policy" : (first?.result ?? "none");
  return { SPF: hasIp ? (v.spf ?? "none") : "none", DKIM: dkim || "none", DMARC: oneFrom ? (v.dmarc ?? "none") : "permerror" };
}

/** The options mailauth gets (the resolver is added where it runs). */
export function mailauthOptions(input: AuthenticationInput) {
  return {
    ip: input.envelope.remoteIp || undefined,
    helo: input.envelope.helo || undefined,
    sender: input.envelope.mailFrom || undefined,
    mta: input.mta,
    disableArc: true,
    disableBimi: true,
  };
}

async function onEventLoop(message: Buffer, input: AuthenticationInput): Promise<MailauthVerdicts> {
  const r = await authenticate(message.length <= SLICE_BYTES ? message : rawSlices(message), { ...mailauthOptions(input), resolver: input.resolver });
  return {
    spf: r.spf ? r.spf.status.result : undefined,
    dkim: r.dkim.results.map((d) => ({ result: d.status.result, aligned: Boolean(d.status.aligned) })),
    fromAddresses: r.dkim.headerFrom.length,
    dmarc: r.dmarc ? r.dmarc.status.result : undefined,
  };
}

/** SPF, DKIM and DMARC of the message; `temperror` when DNS does not answer in time or the work is over its budget. */
export async function authenticationOf(
  input: AuthenticationInput,
  limits: { deadlineMs?: number; cpuBudgetMs?: number; workerMinBytes?: number } = {},
): Promise<Authentication> {
  const { deadlineMs = AUTH_DEADLINE_MS, cpuBudgetMs = AUTH_CPU_BUDGET_MS, workerMinBytes = WORKER_MIN_BYTES } = limits;
  const selection = selectSignatures(input.raw);
  if (!selection) return { SPF: "permerror", DKIM: "permerror", DMARC: "permerror" };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), deadlineMs);
  });
  const work =
    selection.message.length >= workerMinBytes
      ? authenticateOnWorker(selection.message, mailauthOptions(input), input.resolver, { cpuBudgetMs, deadlineMs })
      : onEventLoop(selection.message, input);
  try {
    const result = await Promise.race([work, timeout]);
    return result ? verdicts(result, selection.fromFields, Boolean(input.envelope.remoteIp)) : TEMPERROR;
  } catch {
    return TEMPERROR;
  } finally {
    clearTimeout(timer);
  }
}
