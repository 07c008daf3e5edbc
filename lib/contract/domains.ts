import { z } from "zod";

/**
 * The domains API (docs/contract.md §17.5, docs/adr/0134): an account's
 * sender domains, the records to publish, their health checks, DKIM key
 * rotation and the tracking domain. An extension under /api/v1; the spec's
 * endpoints are untouched. Imports only zod.
 */

/** RFC 1035: 253 characters in all, labels of 1–63. */
export const MAX_DOMAIN_NAME_LENGTH = 253;

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A domain name as the API takes it: ASCII only (an internationalized name is
 * given in its A-label form, `xn--…`), at least two labels, each a letter-digit-
 * hyphen label. The input is bounded before the split, so the per-label test
 * runs on at most 63 characters.
 */
export function isAsciiDomainName(name: string): boolean {
  if (name.length === 0 || name.length > MAX_DOMAIN_NAME_LENGTH) return false;
  const labels = name.split(".");
  return labels.length >= 2 && labels.every((label) => label.length <= 63 && LABEL.test(label));
}

/** Trimmed, lowercase, without the root's trailing dot. */
export const normalizeDomainInput = (s: string) => s.trim().toLowerCase().replace(/\.$/, "");

export const domainNameSchema = z
  .string()
  .max(MAX_DOMAIN_NAME_LENGTH + 2)
  .transform(normalizeDomainInput)
  .refine(isAsciiDomainName, "must be a domain name in ASCII (an IDN in its xn-- form)");

export const addDomainRequestSchema = z.object({
  Domain: domainNameSchema.describe("The sender domain, e.g. mail.example.com"),
});
export type AddDomainRequest = z.infer<typeof addDomainRequestSchema>;

export const updateDomainRequestSchema = z.object({
  TrackingDomain: domainNameSchema
    .nullable()
    .describe("A host name under the sender domain, CNAME'd to the instance, for open and click links; null removes it"),
});
export type UpdateDomainRequest = z.infer<typeof updateDomainRequestSchema>;

/** The `{domain}` path parameter, bounded before anything reads it. */
export const domainParamSchema = z.string().min(1).max(MAX_DOMAIN_NAME_LENGTH + 2);

export const domainQuerySchema = z.object({
  check: z.enum(["true", "false"]).optional().describe("`true`: run the health checks now (DNS lookups) before answering"),
});

export const DNS_RECORD_PURPOSES = ["verification", "dkim", "dkim-next", "dkim-previous", "spf", "dmarc", "return-path", "tracking"] as const;

export const dnsRecordSchema = z.object({
  Purpose: z.enum(DNS_RECORD_PURPOSES),
  Type: z.enum(["TXT", "CNAME", "MX"]),
  Name: z.string(),
  Value: z.string(),
});
export type DnsRecordJson = z.infer<typeof dnsRecordSchema>;

export const HEALTH_CHECK_NAMES = ["verification", "dkim", "spf", "dmarc", "alignment", "return-path-mx", "ptr", "tracking"] as const;
export type HealthCheckName = (typeof HEALTH_CHECK_NAMES)[number];
export const CHECK_STATUSES = ["pass", "warn", "fail"] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];
export const FIX_RECORD_TYPES = ["TXT", "CNAME", "MX", "PTR"] as const;
export type FixRecordType = (typeof FIX_RECORD_TYPES)[number];

export const healthCheckSchema = z.object({
  Check: z.enum(HEALTH_CHECK_NAMES),
  Status: z.enum(CHECK_STATUSES),
  Detail: z.string().describe("What was found and, when not `pass`, what to do"),
  Fix: z
    .object({ Type: z.enum(FIX_RECORD_TYPES), Name: z.string(), Value: z.string() })
    .nullable()
    .describe("The exact record to publish or change, when one would fix it (a PTR is set by the address's provider)"),
});
export type HealthCheckJson = z.infer<typeof healthCheckSchema>;

export const domainSchema = z.object({
  Domain: z.string(),
  Status: z.enum(["pending", "verified"]),
  CreatedAt: z.number().int().describe("Unix seconds"),
  VerifiedAt: z.number().int().nullable(),
  Records: z.array(dnsRecordSchema).describe("Every record to publish"),
  Checks: z.array(healthCheckSchema).describe("The last health checks (empty until the first)"),
  CheckedAt: z.number().int().nullable().describe("When the checks last ran"),
  DkimSelector: z.string(),
  DkimNextSelector: z.string().nullable().describe("A rotation's new selector, signing once its record verifies"),
  DkimPreviousSelector: z.string().nullable().describe("The selector replaced by the last rotation, kept published until DkimPreviousUntil"),
  DkimPreviousUntil: z.number().int().nullable(),
  TrackingDomain: z.string().nullable(),
  TrackingDomainVerified: z.boolean().describe("Whether links use TrackingDomain (its CNAME reaches the instance)"),
});
export type DomainJson = z.infer<typeof domainSchema>;

export const listDomainsResponseSchema = z.object({ Domains: z.array(domainSchema) });
export type ListDomainsResponse = z.infer<typeof listDomainsResponseSchema>;

export const deleteDomainResponseSchema = z.object({});
