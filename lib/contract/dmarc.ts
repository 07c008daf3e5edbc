import { z } from "zod";

/**
 * DMARC aggregate reports (RFC 7489 §7.2) received for a sender domain, as the
 * extension endpoint GET /api/v1/domains/{domain}/dmarc answers them
 * (docs/contract.md extensions). The spec's endpoints are
 * untouched. Imports only zod.
 */

export const MAX_DMARC_DAYS = 400;
export const DEFAULT_DMARC_DAYS = 30;
/** Sources answered at most, the largest counts first. */
export const MAX_DMARC_SOURCES = 200;

export const dmarcQuerySchema = z.object({
  Days: z
    .string()
    .regex(/^[0-9]{1,3}$/)
    .transform(Number)
    .pipe(z.number().int().min(1).max(MAX_DMARC_DAYS))
    .optional()
    .transform((days) => days ?? DEFAULT_DMARC_DAYS)
    .describe("The last N days (UTC, today included) of report days to sum; 1–400, default 30"),
});
export type DmarcQuery = z.infer<typeof dmarcQuerySchema>;

export const DMARC_DISPOSITIONS = ["none", "quarantine", "reject"] as const;
export type DmarcDisposition = (typeof DMARC_DISPOSITIONS)[number];

export const dmarcSourceSchema = z.object({
  SourceIp: z.string().describe("The sending address the reporters saw (IPv4 or IPv6)"),
  Count: z.number().int().describe("Messages from this address in the reports"),
  SpfAligned: z.number().int().describe("Of Count: SPF passed with an aligned domain"),
  DkimAligned: z.number().int().describe("Of Count: DKIM passed with an aligned domain"),
  DmarcPass: z.number().int().describe("Of Count: SPF or DKIM aligned and passing (DMARC passed)"),
  Disposition: z.object({
    none: z.number().int(),
    quarantine: z.number().int(),
    reject: z.number().int(),
  }).describe("Of Count: what the receivers did under the policy"),
  KnownSource: z.boolean().describe("Whether the address is one of this instance's sending addresses; false flags another sender using the domain"),
  Reporters: z.array(z.string()).describe("The reporting organisations' domains, sorted"),
});
export type DmarcSourceJson = z.infer<typeof dmarcSourceSchema>;

export const dmarcResponseSchema = z.object({
  Domain: z.string(),
  Days: z.number().int(),
  Reports: z.number().int().describe("Distinct reports received in the window"),
  Sources: z.array(dmarcSourceSchema).max(MAX_DMARC_SOURCES).describe("By Count, largest first; at most 200"),
});
export type DmarcResponse = z.infer<typeof dmarcResponseSchema>;
