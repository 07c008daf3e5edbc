/**
 * Where a recipient domain's mail goes (pure): the relay in relay mode, else
 * its MX host set. Domains whose MX hosts belong to one mail provider share
 * one destination named after the provider (Gmail's millions of hosted
 * domains are one `gmail`), so that its shaping rules, back-off and holds
 * apply to all of them together (docs/adr/0324).
 */

export interface Destination {
  /** `relay`, a provider's name (`gmail`), or the sorted MX host set (`mx1.example.net,mx2.example.net`). */
  key: string;
  /** The provider whose MX host pattern matched, if any. */
  provider?: string;
}

/** A provider and the MX host name suffixes that identify it (a host matches the suffix itself or any name under it). */
export interface ProviderPattern {
  provider: string;
  mxSuffixes: string[];
}

/** The big providers, by the MX host names they publish for the domains they host. */
export const PROVIDER_PATTERNS: readonly ProviderPattern[] = [
  { provider: "gmail", mxSuffixes: ["google.com", "googlemail.com"] },
  { provider: "outlook", mxSuffixes: ["protection.outlook.com", "outlook.com", "hotmail.com"] },
  { provider: "yahoo", mxSuffixes: ["yahoodns.net", "yahoo.com", "aol.com"] },
  { provider: "icloud", mxSuffixes: ["mail.icloud.com", "mail.me.com"] },
  { provider: "gmx", mxSuffixes: ["gmx.net", "gmx.com", "web.de"] },
  { provider: "comcast", mxSuffixes: ["comcast.net"] },
  { provider: "zoho", mxSuffixes: ["zoho.com", "zoho.eu", "zohomail.com"] },
  { provider: "yandex", mxSuffixes: ["yandex.net", "yandex.ru"] },
  { provider: "mailru", mxSuffixes: ["mail.ru"] },
  { provider: "proofpoint", mxSuffixes: ["pphosted.com", "ppe-hosted.com"] },
  { provider: "mimecast", mxSuffixes: ["mimecast.com"] },
];

/** Host names are compared lowercased, without a final dot; at most this many MX hosts name a destination. */
const MAX_HOSTS_IN_KEY = 16;

const normalHost = (host: string) => host.trim().toLowerCase().replace(/\.$/, "");

export function providerOf(mxHost: string, patterns: readonly ProviderPattern[] = PROVIDER_PATTERNS): string | undefined {
  const host = normalHost(mxHost);
  for (const p of patterns) {
    if (p.mxSuffixes.some((s) => host === s || host.endsWith(`.${s}`))) return p.provider;
  }
  return undefined;
}

/**
 * The destination of a recipient domain: `relay`; else the provider of its most preferred MX host
 * that matches one; else its sorted MX host set (the domain itself when it has no MX: the A fallback).
 */
export function destinationOf(recipientDomain: string, mxHosts: readonly string[] | "relay", patterns: readonly ProviderPattern[] = PROVIDER_PATTERNS): Destination {
  if (mxHosts === "relay") return { key: "relay" };
  const hosts = mxHosts.map(normalHost).filter((h) => h !== "");
  for (const host of hosts) {
    const provider = providerOf(host, patterns);
    if (provider) return { key: provider, provider };
  }
  const set = [...new Set(hosts.length > 0 ? hosts : [normalHost(recipientDomain)])].sort().slice(0, MAX_HOSTS_IN_KEY);
  return { key: set.join(",") };
}

/** What a hold or a shaping rule may name for this mail: the recipient domain, the destination's key, its provider (most specific first, no repeats). */
export function destinationKeysOf(recipientDomain: string, destination: Destination): string[] {
  const keys = [normalHost(recipientDomain), destination.key, ...(destination.provider ? [destination.provider] : [])];
  return [...new Set(keys)];
}
