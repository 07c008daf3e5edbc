import { generateKeyPair, randomBytes } from "node:crypto";
import { promisify } from "node:util";
import type { Queryable } from "../../storage/database";
import type { senderDomains } from "../../storage/schema";
import type { DNS_RECORD_PURPOSES } from "../../contract/domains";
import {
  deleteSenderDomainRow,
  insertSenderDomainIfAbsent,
  markSenderDomainVerified,
  selectSenderDomainRow,
  selectSenderDomainRows,
} from "../../storage/sender-domain-rows";
import { DomainError } from "../shared/domain-error";

export type SenderDomainRow = typeof senderDomains.$inferSelect;

export const DKIM_SELECTOR = "mailroom";

export type DnsRecordPurpose = (typeof DNS_RECORD_PURPOSES)[number];

export function normalizeDomainName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, "");
}

export function isValidDomainName(name: string): boolean {
  return (
    name.length <= 253 &&
    name.includes(".") &&
    name.split(".").every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(l) || /^xn--[a-z0-9-]+$/i.test(l))
  );
}

const generateRsaKeyPair = promisify(generateKeyPair);

/** A 2048-bit DKIM key pair, in the thread pool: one takes 50–300 ms of CPU, which would hold every other request. */
export function generateDkimKeyPair(): Promise<{ privateKey: string; publicKey: string }> {
  return generateRsaKeyPair("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
}

/** Adds a sender domain with a fresh 2048-bit DKIM key pair and verification token. */
export async function addSenderDomain(
  q: Queryable,
  accountId: string,
  rawName: string,
  options: { verified?: boolean } = {},
): Promise<SenderDomainRow> {
  const name = normalizeDomainName(rawName);
  if (!isValidDomainName(name)) throw new DomainError(`"${rawName}" is not a domain name`);
  const { privateKey, publicKey } = await generateDkimKeyPair();
  const row = await insertSenderDomainIfAbsent(q, {
    accountId,
    name,
    status: options.verified ? "verified" : "pending",
    verifiedAt: options.verified ? new Date() : null,
    verificationToken: randomBytes(16).toString("hex"),
    dkimSelector: DKIM_SELECTOR,
    dkimPrivateKey: privateKey,
    dkimPublicKey: publicKey,
  });
  if (!row) throw new DomainError(`The account already has the domain ${name}`);
  return row;
}

export async function listSenderDomains(q: Queryable, accountId: string): Promise<SenderDomainRow[]> {
  return selectSenderDomainRows(q, accountId);
}

export async function findSenderDomain(q: Queryable, accountId: string, name: string): Promise<SenderDomainRow | undefined> {
  return selectSenderDomainRow(q, accountId, normalizeDomainName(name));
}

export async function markDomainVerified(q: Queryable, domainId: string): Promise<SenderDomainRow> {
  return (await markSenderDomainVerified(q, domainId))!;
}

export interface DnsRecord {
  purpose: DnsRecordPurpose;
  type: "TXT" | "CNAME" | "MX";
  name: string;
  value: string;
}

/** What the records name besides the domain: the instance's EHLO name, its tracking host, the bounce domain if one is configured. */
export interface RecordOptions {
  bounceDomain?: string;
  heloName?: string;
  /** The host tracking CNAMEs point to (the public URL's). */
  trackingTarget?: string;
  spfInclude?: string;
}

/** The base64 body of a PEM public key, as a DKIM record's p= carries it. */
export const dkimKeyBase64 = (pem: string) => pem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");

const dkimRecord = (purpose: DnsRecordPurpose, selector: string, domain: string, pem: string): DnsRecord => ({
  purpose,
  type: "TXT",
  name: `${selector}._domainkey.${domain}`,
  value: `v=DKIM1; k=rsa; p=${dkimKeyBase64(pem)}`,
});

/** The Return-Path domain of the domain's mail (lib/tracking/verp.ts's bounceDomainFor, same rule). */
export const returnPathDomainOf = (domain: string, bounceDomain?: string) => (bounceDomain ?? `bounces.${domain}`).toLowerCase();

/** The records an operator publishes for a sender domain. */
export function dnsRecordsFor(domain: SenderDomainRow, options: RecordOptions = {}): DnsRecord[] {
  const bounceDomain = returnPathDomainOf(domain.name, options.bounceDomain);
  const authorized = options.spfInclude ? `include:${options.spfInclude}` : options.heloName ? `a:${options.heloName}` : "a mx";
  const spf = `v=spf1 ${authorized} ~all`;
  const records: DnsRecord[] = [
    { purpose: "verification", type: "TXT", name: `_mailroom.${domain.name}`, value: `mailroom-verification=${domain.verificationToken}` },
    dkimRecord("dkim", domain.dkimSelector, domain.name, domain.dkimPublicKey),
    { purpose: "spf", type: "TXT", name: domain.name, value: spf },
    { purpose: "return-path", type: "MX", name: bounceDomain, value: `10 ${options.heloName ?? bounceDomain}` },
  ];
  // Receivers check the SPF of the Return-Path domain: one of its own when it is the domain's (bounces.<domain>).
  if (!options.bounceDomain) records.push({ purpose: "spf", type: "TXT", name: bounceDomain, value: spf });
  // Aggregate reports come to the inbound server (docs/adr/0809); a report domain outside the policy domain must say it takes them (RFC 7489 §7.1).
  records.push({ purpose: "dmarc", type: "TXT", name: `_dmarc.${domain.name}`, value: `v=DMARC1; p=none; rua=mailto:dmarc@${bounceDomain}` });
  if (bounceDomain !== domain.name && !bounceDomain.endsWith(`.${domain.name}`)) {
    records.push({ purpose: "dmarc", type: "TXT", name: `${domain.name}._report._dmarc.${bounceDomain}`, value: "v=DMARC1" });
  }
  if (domain.dkimNextSelector && domain.dkimNextPublicKey) records.push(dkimRecord("dkim-next", domain.dkimNextSelector, domain.name, domain.dkimNextPublicKey));
  if (domain.dkimPreviousSelector && domain.dkimPreviousPublicKey) {
    records.push(dkimRecord("dkim-previous", domain.dkimPreviousSelector, domain.name, domain.dkimPreviousPublicKey));
  }
  if (domain.trackingDomain) records.push({ purpose: "tracking", type: "CNAME", name: domain.trackingDomain, value: options.trackingTarget ?? options.heloName ?? domain.name });
  return records;
}

/** Removes the account's domain; whether it had one of that name. */
export async function deleteSenderDomain(q: Queryable, accountId: string, name: string): Promise<boolean> {
  return deleteSenderDomainRow(q, accountId, normalizeDomainName(name));
}
