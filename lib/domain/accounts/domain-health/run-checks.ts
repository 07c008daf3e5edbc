import { dmarc, spf } from "mailauth";
import type { DnsRecord, SenderDomainRow } from "../sender-domains";
import { ask, hostKey, txtStrings, type DnsLookup } from "./dns-answers";
import type { HealthCheck, RecordFix } from "./check-result";
import { alignmentCheck, ptrCheck, returnPathMxCheck, reverseName, spfCheck, type SpfOutcome } from "./path-checks";
import { dkimCheck, dmarcCheck, trackingCheck, verificationCheck, type DmarcAnswer } from "./record-checks";

/**
 * One run of a sender domain's health checks (docs/adr/0134): the DNS
 * lookups, through the injected `lookup`, then the pure checks of
 * record-checks.ts and path-checks.ts. SPF is evaluated by mailauth (RFC 7208,
 * 10 lookups at most) and the DMARC record and alignment are found by it too.
 */

export interface InstanceIdentity {
  /** The name the instance announces in EHLO; its A/AAAA are taken for the sending addresses. */
  heloName: string;
}

/** At most this many sending addresses are looked at (a name with hundreds of A records is not a mail host). */
const MAX_SENDING_ADDRESSES = 8;

const fixOf = (r: DnsRecord): RecordFix => ({ type: r.type, name: r.name, value: r.value });
const recordOf = (records: DnsRecord[], purpose: DnsRecord["purpose"]) => records.find((r) => r.purpose === purpose);

/** A host's A and AAAA (the instance's sending addresses: its EHLO name's). */
export async function sendingAddresses(lookup: DnsLookup, heloName: string): Promise<string[]> {
  const [a, aaaa] = await Promise.all([ask<string>(lookup, heloName, "A"), ask<string>(lookup, heloName, "AAAA")]);
  return [...(a.ok ? a.values : []), ...(aaaa.ok ? aaaa.values : [])].slice(0, MAX_SENDING_ADDRESSES);
}

async function spfOutcomes(lookup: DnsLookup, returnPathDomain: string, heloName: string, ips: string[]): Promise<SpfOutcome[]> {
  return Promise.all(
    ips.map(async (ip) => {
      const r = await spf({ sender: `postmaster@${returnPathDomain}`, ip, helo: heloName, mta: heloName, resolver: lookup as never });
      return { ip, result: r.status.result, record: r.rr, comment: r.status.comment };
    }),
  );
}

async function dmarcAnswer(lookup: DnsLookup, domain: string, returnPathDomain: string): Promise<DmarcAnswer & { aligned?: { dkimAligned: boolean; spfAligned: boolean } }> {
  // As if DKIM (d=domain) and SPF (the Return-Path domain) passed: the answer says whether each would align under the record.
  const r = await dmarc({ headerFrom: domain, spfDomains: [returnPathDomain], dkimDomains: [{ domain }], resolver: lookup as never });
  if (!r) return {};
  if (r.status.result === "temperror") return { error: `DNS lookup of the DMARC record of ${domain} failed (${r.error ?? "temporary error"})` };
  if (!r.rr) return {};
  return {
    record: r.rr,
    policy: r.policy,
    pct: typeof r.pct === "number" && r.rr.toLowerCase().includes("pct=") ? r.pct : undefined,
    aligned: { dkimAligned: Boolean(r.alignment?.dkim?.result), spfAligned: Boolean(r.alignment?.spf?.result) },
  };
}

export interface HealthRun {
  checks: HealthCheck[];
  /** Whether the verification TXT, a rotation's new DKIM record and the tracking CNAME check out (what verify acts on). */
  verified: boolean;
  nextDkimVerified: boolean;
  /** The tracking CNAME's verdict; undefined without a tracking domain. A `warn` (the lookup failed) changes nothing. */
  tracking?: HealthCheck["status"];
}

/** Runs every check of `domain` against the records it should publish (`records`, from dnsRecordsFor). */
export async function runHealthChecks(domain: SenderDomainRow, records: DnsRecord[], returnPathDomain: string, instance: InstanceIdentity, lookup: DnsLookup): Promise<HealthRun> {
  const verification = recordOf(records, "verification")!;
  const dkim = recordOf(records, "dkim")!;
  const next = recordOf(records, "dkim-next");
  const dmarcRecord = recordOf(records, "dmarc")!;
  const spfRecord = records.find((r) => r.purpose === "spf" && r.name === returnPathDomain) ?? recordOf(records, "spf")!;
  const tracking = recordOf(records, "tracking");
  const txt = (name: string) => ask<string[]>(lookup, name, "TXT").then(txtStrings);

  const [verificationTxt, dkimTxt, nextTxt, trackingCname, ips, mx, dmarcFound] = await Promise.all([
    txt(verification.name),
    txt(dkim.name),
    next ? txt(next.name) : undefined,
    tracking ? ask<string>(lookup, tracking.name, "CNAME") : undefined,
    sendingAddresses(lookup, instance.heloName),
    ask<{ exchange: string; priority: number }>(lookup, returnPathDomain, "MX"),
    dmarcAnswer(lookup, domain.name, returnPathDomain),
  ]);
  const mxHosts = mx.ok ? mx.values.slice(0, MAX_SENDING_ADDRESSES).map((m) => hostKey(m.exchange)) : [];
  const [spfs, mxAddresses, ptrs] = await Promise.all([
    spfOutcomes(lookup, returnPathDomain, instance.heloName, ips),
    Promise.all(mxHosts.map(async (h) => [h, await sendingAddresses(lookup, h)] as const)),
    Promise.all(ips.map(async (ip) => ({ ip, names: await ask<string>(lookup, reverseName(ip), "PTR") }))),
  ]);

  const verificationResult = verificationCheck(verificationTxt, fixOf(verification));
  const dkimResult = dkimCheck(dkimTxt, fixOf(dkim));
  const nextResult = next && nextTxt ? dkimCheck(nextTxt, fixOf(next)) : undefined;
  const trackingResult = tracking && trackingCname ? trackingCheck(trackingCname, fixOf(tracking)) : undefined;
  const checks: HealthCheck[] = [
    verificationResult,
    nextResult ? { ...dkimResult, detail: `${dkimResult.detail}; rotation: ${nextResult.detail}`, fix: dkimResult.fix ?? nextResult.fix } : dkimResult,
    spfCheck(spfs, fixOf(spfRecord)),
    dmarcCheck(dmarcFound, fixOf(dmarcRecord)),
    alignmentCheck({ fromDomain: domain.name, dkimDomain: domain.name, returnPathDomain, dmarc: dmarcFound.aligned, dkimPublished: dkimResult.status === "pass" }),
    returnPathMxCheck({ returnPathDomain, heloName: instance.heloName, mx, mxAddresses: new Map(mxAddresses), instanceAddresses: ips }),
    ptrCheck(instance.heloName, ptrs),
    ...(trackingResult ? [trackingResult] : []),
  ];
  return {
    checks,
    verified: verificationResult.status === "pass",
    nextDkimVerified: nextResult?.status === "pass",
    tracking: trackingResult?.status,
  };
}
