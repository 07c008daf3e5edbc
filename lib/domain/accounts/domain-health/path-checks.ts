import { hostKey, type Answer } from "./dns-answers";
import { fail, pass, warn, type HealthCheck, type RecordFix } from "./check-result";

/**
 * The checks of the mail's path, pure functions of the answers gathered:
 * SPF of the Return-Path domain for each sending address, alignment of From
 * with the DKIM `d=` and the Return-Path domain, the Return-Path domain's MX
 * reaching the inbound server, and each sending address's PTR.
 */

/** One sending address's SPF result (RFC 7208 §2.6), as mailauth's evaluator returned it. */
export interface SpfOutcome {
  ip: string;
  result: string;
  record?: string;
  comment?: string;
}

export function spfCheck(outcomes: SpfOutcome[], suggested: RecordFix): HealthCheck {
  if (outcomes.length === 0) return warn("spf", `The instance's sending addresses are unknown (its EHLO name has no address): SPF not evaluated`, suggested);
  const bad = outcomes.filter((o) => o.result !== "pass");
  if (bad.length === 0) return pass("spf", `${suggested.name}'s SPF authorizes ${outcomes.map((o) => o.ip).join(", ")}`);
  const first = bad[0]!;
  const where = first.record ? `its record "${first.record.slice(0, 200)}"` : "no record";
  if (first.result === "temperror") return warn("spf", `SPF of ${suggested.name} could not be evaluated for ${first.ip} (${first.comment ?? "temporary error"}); try again later`, suggested);
  if (first.result === "none") return fail("spf", `No SPF record at ${suggested.name}: publish it`, suggested);
  if (first.result === "permerror") {
    return fail("spf", `SPF of ${suggested.name} is broken (${first.comment ?? "permerror"}, e.g. more than 10 lookups): ${where}; replace it`, suggested);
  }
  const ips = bad.map((o) => o.ip).join(", ");
  const status = first.result === "softfail" || first.result === "neutral" ? warn : fail;
  return status("spf", `SPF of ${suggested.name} gives ${first.result} for ${ips} with ${where}: authorize the instance (${suggested.value})`, suggested);
}

/** Relaxed alignment without the public suffix list: one name equal to or under the other. */
export function relaxedAligned(a: string, b: string): boolean {
  const x = hostKey(a);
  const y = hostKey(b);
  return x === y || x.endsWith(`.${y}`) || y.endsWith(`.${x}`);
}

export interface AlignmentFacts {
  fromDomain: string;
  dkimDomain: string;
  returnPathDomain: string;
  /** mailauth's verdict under the domain's DMARC record (its adkim/aspf and the organizational domain); undefined without a record. */
  dmarc?: { dkimAligned: boolean; spfAligned: boolean };
  /** Whether the DKIM record checks out (an aligned d= without a published key does not pass DMARC). */
  dkimPublished: boolean;
}

/** DMARC passes on DKIM or SPF aligned with From (RFC 7489 §3.1); both is best. */
export function alignmentCheck(f: AlignmentFacts): HealthCheck {
  const dkimAligned = f.dmarc?.dkimAligned ?? relaxedAligned(f.fromDomain, f.dkimDomain);
  const spfAligned = f.dmarc?.spfAligned ?? relaxedAligned(f.fromDomain, f.returnPathDomain);
  const dkimOk = dkimAligned && f.dkimPublished;
  if (dkimOk && spfAligned) return pass("alignment", `From ${f.fromDomain} aligns with DKIM d=${f.dkimDomain} and the Return-Path ${f.returnPathDomain}`);
  const rpAdvice = `the Return-Path domain ${f.returnPathDomain} is not under ${f.fromDomain}: unset MAILROOM_BOUNCE_DOMAIN (bounces.<domain>) or set it under this domain`;
  if (dkimOk) return warn("alignment", `DMARC passes on DKIM alone; ${rpAdvice}`);
  if (spfAligned) return warn("alignment", `DMARC passes on SPF alone: DKIM d=${f.dkimDomain} ${dkimAligned ? "has no published key" : "is not aligned"}`);
  return fail("alignment", `Neither DKIM nor SPF aligns with From ${f.fromDomain}: ${rpAdvice}, and publish the DKIM record`);
}

export interface MxFacts {
  returnPathDomain: string;
  heloName: string;
  mx: Answer<{ exchange: string; priority: number }>;
  /** The addresses of each MX host. */
  mxAddresses: Map<string, string[]>;
  /** The instance's addresses (its EHLO name's A and AAAA). */
  instanceAddresses: string[];
}

/** Bounces and complaints come back to the Return-Path domain's MX: it must reach the inbound server. */
export function returnPathMxCheck(f: MxFacts): HealthCheck {
  const fix: RecordFix = { type: "MX", name: f.returnPathDomain, value: `10 ${f.heloName}` };
  if (!f.mx.ok) return warn("return-path-mx", `${f.mx.error}; try again later`, fix);
  if (f.mx.values.length === 0) return fail("return-path-mx", `No MX at ${f.returnPathDomain}: bounces and complaints cannot come back; publish it`, fix);
  const reaches = f.mx.values.some(
    (m) => hostKey(m.exchange) === hostKey(f.heloName) || (f.mxAddresses.get(hostKey(m.exchange)) ?? []).some((a) => f.instanceAddresses.includes(a)),
  );
  if (reaches) return pass("return-path-mx", `The MX of ${f.returnPathDomain} reaches the inbound server`);
  const hosts = f.mx.values.map((m) => hostKey(m.exchange)).join(", ");
  return fail("return-path-mx", `The MX of ${f.returnPathDomain} (${hosts}) does not reach the inbound server ${f.heloName}: replace it`, fix);
}

/** The `in-addr.arpa` or `ip6.arpa` name of an address (RFC 1035 §3.5, RFC 3596 §2.5). */
export function reverseName(ip: string): string {
  if (ip.includes(":")) {
    const [head = "", tail = ""] = ip.split("::");
    const h = head ? head.split(":") : [];
    const t = tail ? tail.split(":") : [];
    const groups = ip.includes("::") ? [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t] : h;
    const nibbles = groups.map((g) => g.padStart(4, "0")).join("");
    return `${[...nibbles].reverse().join(".")}.ip6.arpa`;
  }
  return `${ip.split(".").reverse().join(".")}.in-addr.arpa`;
}

/** Each sending address's PTR names the EHLO name (forward-confirmed by the A/AAAA that gave the address). */
export function ptrCheck(heloName: string, ptrs: { ip: string; names: Answer<string> }[]): HealthCheck {
  if (ptrs.length === 0) return fail("ptr", `The EHLO name ${heloName} has no A or AAAA record: publish the sending address there`);
  for (const { ip, names } of ptrs) {
    const ptrFix: RecordFix = { type: "PTR", name: reverseName(ip), value: heloName };
    if (!names.ok) return warn("ptr", `${names.error}; try again later`, ptrFix);
    if (!names.values.some((n) => hostKey(n) === hostKey(heloName))) {
      const found = names.values.length ? `names ${names.values.map(hostKey).join(", ")}` : "has no PTR";
      return fail("ptr", `${ip} ${found}, not the EHLO name ${heloName}: ask the address's provider for the PTR`, ptrFix);
    }
  }
  return pass("ptr", `${ptrs.map((p) => p.ip).join(", ")} ${ptrs.length > 1 ? "name" : "names"} ${heloName}`);
}
