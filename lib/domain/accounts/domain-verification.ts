import { promises as dns } from "node:dns";
import { dnsRecordsFor, type SenderDomainRow } from "./sender-domains";

/**
 * Checks that a sender domain's owner published the records of
 * `dnsRecordsFor`: the `_mailroom.<domain>` TXT record carrying the
 * verification token decides; the DKIM record is reported for information
 * (a domain can be verified before DKIM is in place). The resolver is
 * injectable so that tests never touch the internet.
 */

/** node:dns's resolveTxt: each record is a list of character strings. */
export type TxtResolver = (name: string) => Promise<string[][]>;

export interface DomainCheck {
  domain: string;
  verified: boolean;
  verificationRecord: { name: string; expected: string; found: string[] };
  dkimFound: boolean;
  /** Why the check could not conclude (DNS failure other than "no such record"). */
  error?: string;
}

const NOT_FOUND_CODES = new Set(["ENOTFOUND", "ENODATA", "NXDOMAIN", "ENONAME"]);

export const systemTxtResolver: TxtResolver = (name) => dns.resolveTxt(name);

/**
 * A resolver that asks the given DNS servers ("192.0.2.53", "192.0.2.53:5353",
 * "[2001:db8::53]:53") instead of the system's: to check against a domain's
 * authoritative server before caches have the record.
 */
export function txtResolverFor(servers: string[]): TxtResolver {
  const resolver = new dns.Resolver({ timeout: 3000, tries: 2 });
  resolver.setServers(servers);
  return (name) => resolver.resolveTxt(name);
}

async function lookupTxt(resolve: TxtResolver, name: string): Promise<{ values: string[]; error?: string }> {
  try {
    return { values: (await resolve(name)).map((chunks) => chunks.join("")) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    if (NOT_FOUND_CODES.has(code)) return { values: [] };
    return { values: [], error: `DNS lookup of ${name} failed (${code || (err as Error).message})` };
  }
}

export async function checkDomainDns(domain: SenderDomainRow, resolve: TxtResolver = systemTxtResolver): Promise<DomainCheck> {
  const records = dnsRecordsFor(domain);
  const verification = records.find((r) => r.purpose === "verification")!;
  const dkim = records.find((r) => r.purpose === "dkim")!;
  const [found, dkimTxt] = await Promise.all([lookupTxt(resolve, verification.name), lookupTxt(resolve, dkim.name)]);
  const expected = verification.value;
  const dkimKey = /p=([^;\s]+)/.exec(dkim.value)?.[1];
  return {
    domain: domain.name,
    verified: found.values.some((v) => v.trim() === expected),
    verificationRecord: { name: verification.name, expected, found: found.values },
    dkimFound: dkimTxt.values.some((v) => dkimKey !== undefined && v.replace(/\s+/g, "").includes(`p=${dkimKey}`)),
    ...(found.error && { error: found.error }),
  };
}

/** One line that tells the operator what is wrong, for a failed check. */
export function describeFailedCheck(check: DomainCheck): string {
  if (check.error) return `${check.error}; try again later`;
  const { name, expected, found } = check.verificationRecord;
  if (found.length === 0) return `No TXT record found at ${name}: publish "${expected}" there, then verify again`;
  return `The TXT record at ${name} does not match: expected "${expected}", found ${found.map((f) => `"${f}"`).join(", ")}`;
}
