import { generateKeyPair, randomBytes } from "node:crypto";
import { promisify } from "node:util";
import type { Queryable } from "../../storage/database";
import type { senderDomains } from "../../storage/schema";
import { insertSenderDomainIfAbsent, markSenderDomainVerified, selectSenderDomainRow, selectSenderDomainRows } from "../../storage/sender-domain-rows";
import { DomainError } from "../shared/domain-error";

export type SenderDomainRow = typeof senderDomains.$inferSelect;

export const DKIM_SELECTOR = "mailroom";

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

/** Adds a sender domain with a fresh 2048-bit DKIM key pair and verification token. */
export async function addSenderDomain(
  q: Queryable,
  accountId: string,
  rawName: string,
  options: { verified?: boolean } = {},
): Promise<SenderDomainRow> {
  const name = normalizeDomainName(rawName);
  if (!isValidDomainName(name)) throw new DomainError(`"${rawName}" is not a domain name`);
  // In the thread pool: a 2048-bit RSA key takes 50–300 ms of CPU, which would hold every other request.
  const { privateKey, publicKey } = await generateRsaKeyPair("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
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
  purpose: "verification" | "dkim" | "spf" | "return-path";
  type: "TXT" | "CNAME" | "MX";
  name: string;
  value: string;
}

/** The records an operator publishes for a sender domain. */
export function dnsRecordsFor(domain: SenderDomainRow, options: { bounceDomain?: string; spfInclude?: string } = {}): DnsRecord[] {
  const publicKeyBase64 = domain.dkimPublicKey
    .replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "")
    .replace(/\s+/g, "");
  const bounceDomain = options.bounceDomain ?? `bounces.${domain.name}`;
  return [
    { purpose: "verification", type: "TXT", name: `_mailroom.${domain.name}`, value: `mailroom-verification=${domain.verificationToken}` },
    { purpose: "dkim", type: "TXT", name: `${domain.dkimSelector}._domainkey.${domain.name}`, value: `v=DKIM1; k=rsa; p=${publicKeyBase64}` },
    { purpose: "spf", type: "TXT", name: domain.name, value: `v=spf1 ${options.spfInclude ? `include:${options.spfInclude} ` : "a mx "}~all` },
    { purpose: "return-path", type: "MX", name: bounceDomain, value: `10 ${bounceDomain}` },
  ];
}
