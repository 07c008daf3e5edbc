/**
 * The MTA-STS policy file (RFC 8461 §3.2): `key: value` lines (CRLF or LF),
 * `version: STSv1`, `mode` (enforce, testing, none), `max_age` (seconds, at
 * most 31557600) and one `mx` line per MX pattern (`mx.example.com` or
 * `*.example.com`). Unknown keys are ignored. Parsed line by line after the
 * fetch bounded its size (mta-sts-fetch.ts): linear, no regular expressions.
 */

export type StsMode = "enforce" | "testing" | "none";

export interface StsPolicy {
  mode: StsMode;
  maxAgeSeconds: number;
  /** Lower case, without a trailing dot. */
  mx: string[];
  /** The policy's lines as fetched (TLS-RPT's policy-string, RFC 8460 §4.4). */
  lines: string[];
}

export const MAX_AGE_LIMIT_SECONDS = 31_557_600;
/** More mx lines than this is no sensible policy (RFC 8461 sets no limit; real ones have a handful). */
const MAX_MX_PATTERNS = 64;

export type PolicyParse = { ok: true; policy: StsPolicy } | { ok: false; reason: string };

const isLabelChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95;

/** A host name of labels of letters, digits, `-` and `_`, each 1–63 long, 253 in all; optionally `*.` before it. */
export function isMxPattern(pattern: string): boolean {
  const host = pattern.startsWith("*.") ? pattern.slice(2) : pattern;
  if (host.length === 0 || host.length > 253) return false;
  let label = 0;
  for (let i = 0; i < host.length; i++) {
    const c = host.charCodeAt(i);
    if (c === 46) {
      if (label === 0) return false;
      label = 0;
    } else if (isLabelChar(c)) {
      if (++label > 63) return false;
    } else return false;
  }
  return label > 0;
}

export function parseStsPolicy(text: string): PolicyParse {
  const lines = text
    .split("\n")
    .map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l))
    .filter((l) => l.trim() !== "");
  let version: string | undefined;
  let mode: string | undefined;
  let maxAge: string | undefined;
  const mx: string[] = [];
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) return { ok: false, reason: `a line without "key: value": ${line.slice(0, 80)}` };
    const key = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (key === "version") version ??= value;
    else if (key === "mode") mode ??= value;
    else if (key === "max_age") maxAge ??= value;
    else if (key === "mx") {
      const pattern = withoutTrailingDot(value.toLowerCase());
      if (!isMxPattern(pattern)) return { ok: false, reason: `an mx line that is no host name or *.pattern: ${value.slice(0, 80)}` };
      if (mx.length >= MAX_MX_PATTERNS) return { ok: false, reason: `more than ${MAX_MX_PATTERNS} mx lines` };
      mx.push(pattern);
    }
  }
  if (version !== "STSv1") return { ok: false, reason: `version is ${version === undefined ? "missing" : `"${version.slice(0, 20)}"`}, not STSv1` };
  if (mode !== "enforce" && mode !== "testing" && mode !== "none") return { ok: false, reason: `mode is ${mode === undefined ? "missing" : `"${mode.slice(0, 20)}"`}` };
  if (maxAge === undefined || maxAge.length === 0 || maxAge.length > 10 || ![...maxAge].every((c) => c >= "0" && c <= "9")) {
    return { ok: false, reason: "max_age is not a number of seconds" };
  }
  const maxAgeSeconds = Number(maxAge);
  if (maxAgeSeconds > MAX_AGE_LIMIT_SECONDS) return { ok: false, reason: `max_age ${maxAgeSeconds} is over ${MAX_AGE_LIMIT_SECONDS}` };
  if (mode !== "none" && mx.length === 0) return { ok: false, reason: "no mx line" };
  return { ok: true, policy: { mode, maxAgeSeconds, mx, lines } };
}

/**
 * Whether an MX host name matches a policy pattern (RFC 8461 §4.1): equal,
 * or `*.example.com` for exactly one more label on the left
 * (`mx.example.com`, not `a.mx.example.com` nor `example.com`).
 */
export function mxMatches(host: string, pattern: string): boolean {
  const h = withoutTrailingDot(host.toLowerCase());
  if (!pattern.startsWith("*.")) return h === pattern;
  const suffix = pattern.slice(1);
  if (!h.endsWith(suffix)) return false;
  const first = h.slice(0, h.length - suffix.length);
  return first.length > 0 && !first.includes(".");
}

export const mxMatchesPolicy = (host: string, policy: StsPolicy): boolean => policy.mx.some((p) => mxMatches(host, p));

export const withoutTrailingDot = (name: string): string => (name.endsWith(".") ? name.slice(0, -1) : name);
