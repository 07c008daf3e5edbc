/**
 * The `_smtp._tls.<domain>` TXT record of TLS-RPT (RFC 8460 §3), read
 * linearly within bounds: `v=TLSRPTv1; rua=mailto:a@b.example,https://r.example/x`.
 * Fields are split on `;`, the rua's URIs on `,` (a URI's own commas and
 * semicolons are %-encoded, §3); unknown fields are ignored. Exactly one
 * record must begin with `v=TLSRPTv1`, else the domain has none (§3).
 */

export type Rua = { kind: "mailto"; address: string; uri: string } | { kind: "https"; url: string; uri: string };

export type TlsRptRecord = { ok: true; ruas: Rua[]; ignored: string[] } | { ok: false; reason: string };

/** Longest record read (its character strings joined), URIs per record, characters per URI. */
export const RECORD_BOUNDS = { recordChars: 4096, records: 16, ruas: 8, uriChars: 1024 } as const;

const VERSION = "v=TLSRPTv1";
const isWsp = (c: string) => c === " " || c === "\t";

function trimWsp(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isWsp(s[a]!)) a++;
  while (b > a && isWsp(s[b - 1]!)) b--;
  return s.slice(a, b);
}

/** The records of a TXT answer that are TLS-RPT's: those beginning with `v=TLSRPTv1` followed by `;`, WSP or the end. */
function isTlsRpt(record: string): boolean {
  if (!record.startsWith(VERSION)) return false;
  const next = record[VERSION.length];
  return next === undefined || next === ";" || isWsp(next);
}

/** Only printable US-ASCII without spaces (after %-decoding for mailto). */
function printable(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) return false;
  }
  return true;
}

function decodePercent(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** One rua URI: `mailto:` (its address, any `?query` dropped) or `https:` (`http:` too when allowHttp: test rigs only). */
export function parseRuaUri(text: string, options: { allowHttp?: boolean } = {}): Rua | { error: string } {
  const uri = trimWsp(text);
  if (uri.length === 0) return { error: "empty URI" };
  if (uri.length > RECORD_BOUNDS.uriChars) return { error: "URI too long" };
  if (!printable(uri)) return { error: "URI with spaces or non-ASCII characters" };
  const colon = uri.indexOf(":");
  const scheme = colon > 0 ? uri.slice(0, colon).toLowerCase() : "";
  if (scheme === "mailto") {
    const rest = uri.slice(colon + 1);
    const q = rest.indexOf("?");
    const address = decodePercent(q === -1 ? rest : rest.slice(0, q));
    if (address === undefined || !printable(address)) return { error: "mailto: with a bad %-encoding" };
    const at = address.lastIndexOf("@");
    if (at <= 0 || at === address.length - 1 || address.indexOf("@") !== at || address.length > 254 || address.includes(",") || address.includes(";")) {
      return { error: "mailto: without one address" };
    }
    return { kind: "mailto", address: `${address.slice(0, at)}@${address.slice(at + 1).toLowerCase()}`, uri };
  }
  if (scheme === "https" || (scheme === "http" && options.allowHttp)) {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return { error: "not a URL" };
    }
    if (!url.hostname) return { error: "URL without a host" };
    return { kind: "https", url: url.toString(), uri };
  }
  return { error: `unsupported scheme ${JSON.stringify(scheme.slice(0, 20))}` };
}

/** The rua URIs of a domain's TXT answer (each record's character strings joined already). */
export function parseTlsRptRecords(records: string[], options: { allowHttp?: boolean } = {}): TlsRptRecord {
  const mine = records.slice(0, RECORD_BOUNDS.records).filter(isTlsRpt);
  if (mine.length === 0) return { ok: false, reason: "no v=TLSRPTv1 record" };
  if (mine.length > 1) return { ok: false, reason: "more than one v=TLSRPTv1 record (RFC 8460 §3: none then)" };
  const record = mine[0]!;
  if (record.length > RECORD_BOUNDS.recordChars) return { ok: false, reason: `record longer than ${RECORD_BOUNDS.recordChars} characters` };
  const fields = record.split(";").map(trimWsp);
  if (fields[0] !== VERSION) return { ok: false, reason: "the record does not begin with v=TLSRPTv1" };
  let ruaField: string | undefined;
  for (const field of fields.slice(1)) {
    if (field === "") continue;
    if (field.startsWith("rua=")) {
      if (ruaField !== undefined) return { ok: false, reason: "more than one rua field" };
      ruaField = field.slice(4);
    }
  }
  if (ruaField === undefined) return { ok: false, reason: "no rua field" };
  const ruas: Rua[] = [];
  const ignored: string[] = [];
  const uris = ruaField.split(",");
  for (const uri of uris.slice(0, RECORD_BOUNDS.ruas)) {
    const r = parseRuaUri(uri, options);
    if ("error" in r) ignored.push(`${trimWsp(uri).slice(0, 100)}: ${r.error}`);
    else if (!ruas.some((x) => x.uri === r.uri)) ruas.push(r);
  }
  if (uris.length > RECORD_BOUNDS.ruas) ignored.push(`${uris.length - RECORD_BOUNDS.ruas} URI(s) past the first ${RECORD_BOUNDS.ruas}`);
  if (ruas.length === 0) return { ok: false, reason: `no usable rua URI (${ignored.join("; ")})` };
  return { ok: true, ruas, ignored };
}
