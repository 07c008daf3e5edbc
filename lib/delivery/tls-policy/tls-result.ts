/**
 * What outbound TLS did for one copy (docs/adr/0326): the verdict kept with
 * its delivery attempt and shown on its timeline, and the result a TLS-RPT
 * report (RFC 8460) counts for the policy domain.
 */

/** The policy that applied to a copy: none (plain text allowed), opportunistic STARTTLS, MTA-STS (RFC 8461), DANE (RFC 7672). */
export type TlsPolicyName = "none" | "opportunistic" | "mta-sts" | "dane";

export interface TlsVerdict {
  policy: TlsPolicyName;
  /** An MTA-STS policy's mode (enforce or testing). */
  mode?: "enforce" | "testing";
  /** Negotiated protocol and cipher ("TLSv1.3", "TLS_AES_256_GCM_SHA384"); absent when the copy went in clear or never got that far. */
  version?: string;
  cipher?: string;
  /** The peer's certificate was checked and passed the policy's check (WebPKI and name for MTA-STS, TLSA for DANE). */
  verified: boolean;
  /** Why the policy's check failed (an enforced one deferred the copy; a testing one delivered it). */
  failure?: string;
}

/** RFC 8460 §4.4 policy-type. */
export type TlsRptPolicyType = "sts" | "tlsa" | "no-policy-found";

/** RFC 8460 §4.3 result-type of a failed session. */
export type TlsRptResultType =
  | "starttls-not-supported"
  | "certificate-host-mismatch"
  | "certificate-expired"
  | "certificate-not-trusted"
  | "validation-failure"
  | "tlsa-invalid"
  | "dnssec-invalid"
  | "dane-required"
  | "sts-policy-fetch-error"
  | "sts-policy-invalid"
  | "sts-webpki-invalid";

/** One TLS session attempt (or policy failure) towards a policy domain, as TLS-RPT counts it. */
export interface TlsSessionResult {
  /** The recipient domain whose policy applied (RFC 8460 policy-domain). */
  policyDomain: string;
  policyType: TlsRptPolicyType;
  /** RFC 8460 policy-string: an STS policy's lines, or the TLSA records in presentation form ("3 1 1 ab12..."). */
  policyString: string[];
  /** The MX host the session was with (or tried). */
  mxHost: string;
  receivingIp?: string;
  sendingIp?: string;
  /** Absent: a successful session. */
  failure?: { resultType: TlsRptResultType; additionalInformation?: string };
  /** When (ms since the epoch): its UTC day is the report's. */
  at: number;
}

/** Where delivery hands each session's result; TLS-RPT's counter (lib/delivery/tls-reports) is one. */
export interface TlsSessionSink {
  add(result: TlsSessionResult): void;
}
