import type { Answer } from "./dns-answers";
import { hostKey } from "./dns-answers";
import { fail, pass, warn, type HealthCheck, type RecordFix } from "./check-result";

/**
 * The checks of records the domain's owner publishes, each a pure function of
 * the DNS answers: the verification TXT, the DKIM key, the DMARC policy and
 * the tracking domain's CNAME.
 */

const failedLookup = (check: HealthCheck["check"], error: string, fix: RecordFix) => warn(check, `${error}; try again later`, fix);

/** `_mailroom.<domain>` carries the verification token. */
export function verificationCheck(answer: Answer<string>, expected: RecordFix): HealthCheck {
  if (!answer.ok) return failedLookup("verification", answer.error, expected);
  if (answer.values.some((v) => v.trim() === expected.value)) return pass("verification", `${expected.name} carries the verification token`);
  if (answer.values.length === 0) return fail("verification", `No TXT record found at ${expected.name}: publish "${expected.value}" there, then verify again`, expected);
  const found = answer.values.map((v) => `"${v.slice(0, 200)}"`).join(", ");
  return fail("verification", `The TXT record at ${expected.name} does not match: expected "${expected.value}", found ${found}`, expected);
}

/** The base64 of a DKIM record's `p=` tag (RFC 6376 §3.6.1), whitespace removed; undefined without one. */
export function dkimPublicKeyOf(record: string): string | undefined {
  for (const tag of record.slice(0, 4096).split(";")) {
    const eq = tag.indexOf("=");
    if (eq < 0) continue;
    if (tag.slice(0, eq).trim().toLowerCase() === "p") return tag.slice(eq + 1).replace(/\s+/g, "");
  }
  return undefined;
}

/** `<selector>._domainkey.<domain>` publishes the key that signs (or, for a rotation, will sign). */
export function dkimCheck(answer: Answer<string>, expected: RecordFix): HealthCheck {
  if (!answer.ok) return failedLookup("dkim", answer.error, expected);
  const want = dkimPublicKeyOf(expected.value);
  const keys = answer.values.map(dkimPublicKeyOf);
  if (want && keys.includes(want)) return pass("dkim", `${expected.name} publishes the key in use`);
  if (keys.length === 0) return fail("dkim", `No DKIM record at ${expected.name}: receivers cannot check the signature; publish it`, expected);
  if (keys.every((k) => k === "")) return fail("dkim", `The DKIM record at ${expected.name} is revoked (empty p=); publish the key in use`, expected);
  return fail("dkim", `The DKIM record at ${expected.name} has another key than the one in use: replace it`, expected);
}

export interface DmarcAnswer {
  /** The record found (at `_dmarc.<domain>` or its organizational domain), undefined when none. */
  record?: string;
  /** The policy that applies to the domain (`sp` for a subdomain under the organizational record, else `p`). */
  policy?: string;
  pct?: number;
  error?: string;
}

/** A DMARC record at `_dmarc.<domain>` with a policy: `quarantine` or `reject` pass, `none` warns (monitoring only). */
export function dmarcCheck(answer: DmarcAnswer, suggested: RecordFix): HealthCheck {
  if (answer.error) return failedLookup("dmarc", answer.error, suggested);
  if (!answer.record) {
    return fail("dmarc", `No DMARC record at ${suggested.name}: Gmail and Yahoo require one of bulk senders; publish it (start with p=none)`, suggested);
  }
  const policy = (answer.policy ?? "").toLowerCase();
  if (policy === "none") {
    return warn("dmarc", `DMARC policy is none (monitoring only): once the reports show only your sources, move to p=quarantine`, {
      ...suggested,
      value: suggested.value.replace("p=none", "p=quarantine"),
    });
  }
  if (policy !== "quarantine" && policy !== "reject") return fail("dmarc", `The DMARC record "${answer.record.slice(0, 200)}" has no valid policy (p=)`, suggested);
  if (answer.pct !== undefined && answer.pct < 100) return warn("dmarc", `DMARC policy ${policy} applies to ${answer.pct}% of failing mail only`);
  return pass("dmarc", `DMARC policy ${policy}`);
}

/** The tracking domain is a CNAME to the instance's host name. */
export function trackingCheck(answer: Answer<string>, expected: RecordFix): HealthCheck {
  if (!answer.ok) return failedLookup("tracking", answer.error, expected);
  if (answer.values.some((v) => hostKey(v) === hostKey(expected.value))) return pass("tracking", `${expected.name} is a CNAME to ${expected.value}`);
  if (answer.values.length === 0) return fail("tracking", `No CNAME at ${expected.name}: links keep the instance's own host until it is published`, expected);
  return fail("tracking", `${expected.name} is a CNAME to ${answer.values.map(hostKey).join(", ")}, not ${expected.value}`, expected);
}
