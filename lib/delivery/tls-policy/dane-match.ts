import { createHash, X509Certificate } from "node:crypto";

/**
 * DANE for SMTP (RFC 7672 §3): a TLSA record set matched against the
 * certificate chain the MX host presented. Usable records are DANE-EE(3)
 * (the leaf; no name check, no expiry check, §3.1) and DANE-TA(2) (a trust
 * anchor in the presented chain, then the leaf must name the MX host,
 * §3.2.2); PKIX-TA(0) and PKIX-EE(1) are unusable for SMTP (§3.1.3).
 * Selectors: 0 the whole certificate, 1 its SubjectPublicKeyInfo; matching
 * types: 0 exact, 1 SHA-256, 2 SHA-512.
 */

export interface TlsaRecord {
  usage: number;
  selector: number;
  matchingType: number;
  data: Buffer;
}

export type DaneCheck =
  | { ok: true; matched: string }
  /** No usable record: TLS is still mandatory (RFC 7672 §2.2), the peer unauthenticated. */
  | { ok: true; matched: undefined }
  | { ok: false; reason: string };

export const isUsable = (r: TlsaRecord): boolean => (r.usage === 2 || r.usage === 3) && (r.selector === 0 || r.selector === 1) && r.matchingType <= 2;

/** "3 1 1 ab12…": the record's presentation form (TLS-RPT's policy-string, RFC 8460 §4.4). */
export const tlsaText = (r: TlsaRecord): string => `${r.usage} ${r.selector} ${r.matchingType} ${r.data.toString("hex")}`;

function selected(cert: X509Certificate, selector: number): Buffer {
  return selector === 0 ? cert.raw : (cert.publicKey.export({ type: "spki", format: "der" }) as Buffer);
}

function digest(data: Buffer, matchingType: number): Buffer {
  if (matchingType === 1) return createHash("sha256").update(data).digest();
  if (matchingType === 2) return createHash("sha512").update(data).digest();
  return data;
}

const matches = (r: TlsaRecord, cert: X509Certificate): boolean => digest(selected(cert, r.selector), r.matchingType).equals(r.data);

/**
 * `chain` is the presented chain, leaf first (DER). `mxHost` is the name the
 * DANE-TA check requires in the leaf (the MX host name, RFC 7672 §3.2.2).
 */
export function checkDane(records: readonly TlsaRecord[], chain: readonly Buffer[], mxHost: string): DaneCheck {
  const usable = records.filter(isUsable);
  if (usable.length === 0) return { ok: true, matched: undefined };
  if (chain.length === 0) return { ok: false, reason: "the MX host presented no certificate" };
  const certs = chain.map((der) => new X509Certificate(der));
  const leaf = certs[0]!;
  for (const r of usable.filter((u) => u.usage === 3)) if (matches(r, leaf)) return { ok: true, matched: tlsaText(r) };
  for (const r of usable.filter((u) => u.usage === 2)) {
    // A trust anchor: one of the presented issuers (or the leaf itself, self-issued), with the chain to the leaf.
    const anchorAt = certs.findIndex((c) => matches(r, c));
    if (anchorAt < 0 || !chainsTo(certs.slice(0, anchorAt + 1))) continue;
    if (leaf.checkHost(mxHost) === undefined) return { ok: false, reason: `the DANE-TA record matched, but the certificate does not name ${mxHost}` };
    return { ok: true, matched: tlsaText(r) };
  }
  return { ok: false, reason: `no TLSA record of ${mxHost} matches its certificate (${usable.map(tlsaText).map(short).join(", ")})` };
}

const short = (text: string) => (text.length > 24 ? `${text.slice(0, 24)}…` : text);

/** Each certificate of `certs` (leaf first) is signed by the next one. */
function chainsTo(certs: readonly X509Certificate[]): boolean {
  for (let i = 0; i + 1 < certs.length; i++) if (!certs[i]!.verify(certs[i + 1]!.publicKey)) return false;
  return true;
}
