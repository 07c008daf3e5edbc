import { z } from "zod";
import { DEFAULT_RETRIEVE_COUNT, integerString, MAX_RETRIEVE_COUNT } from "./events";
import { isValidEmail, MAX_LINE_LENGTH } from "./text";

/**
 * The suppressions API (docs/contract.md §17.1): the account's list of
 * addresses that receive no mail, the same rows the dashboard and the CLI
 * manage. Imports only zod and the contract.
 */

export const SUPPRESSION_REASONS = ["hard-bounce", "complaint", "unsubscribe", "manual"] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

export const MAX_SUPPRESSION_DETAIL = 1000;

/** An address as the API takes it: trimmed, bounded, then the address rules of docs/contract.md §5.17. */
export const suppressionEmailSchema = z
  .string()
  .max(MAX_LINE_LENGTH)
  .transform((s) => s.trim())
  .refine(isValidEmail, "must be an email address (docs/contract.md §5.17)");

export const suppressionsQuerySchema = z.object({
  Reason: z.enum(SUPPRESSION_REASONS).optional().describe("Only entries with this reason"),
  Email: z.string().trim().max(MAX_LINE_LENGTH).optional().describe("Only this address (any case)"),
  StartFrom: integerString(0).optional().meta({ default: 0 }).describe("Offset, default 0"),
  RetrieveCount: integerString(1, MAX_RETRIEVE_COUNT)
    .optional()
    .meta({ default: DEFAULT_RETRIEVE_COUNT })
    .describe(`1–${MAX_RETRIEVE_COUNT}, default ${DEFAULT_RETRIEVE_COUNT}`),
});
export type SuppressionsQuery = z.infer<typeof suppressionsQuerySchema>;

export const suppressionRecordSchema = z.object({
  Email: z.string(),
  Reason: z.enum(SUPPRESSION_REASONS),
  Detail: z.string(),
  MessageID: z.string().nullable().describe("The message whose bounce or complaint added it, if any"),
  CreatedAt: z.number().int().describe("Unix seconds"),
});
export type SuppressionRecord = z.infer<typeof suppressionRecordSchema>;

export const listSuppressionsResponseSchema = z.object({
  TotalRecords: z.number().int(),
  Suppressions: z.array(suppressionRecordSchema),
});
export type ListSuppressionsResponse = z.infer<typeof listSuppressionsResponseSchema>;

export const addSuppressionRequestSchema = z.object({
  Email: suppressionEmailSchema,
  Reason: z.enum(SUPPRESSION_REASONS).optional().describe("Default `manual`"),
  Detail: z.string().max(MAX_SUPPRESSION_DETAIL).optional().describe("A note kept with the entry"),
});
export type AddSuppressionRequest = z.infer<typeof addSuppressionRequestSchema>;

export const addSuppressionResponseSchema = z.object({
  Email: z.string().describe("The address as stored (lowercase)"),
  Added: z.boolean().describe("false when it was on the list already (its first reason stays)"),
});
export type AddSuppressionResponse = z.infer<typeof addSuppressionResponseSchema>;

/** The `{email}` path parameter, URL-decoded by the router: bounded before anything reads it. */
export const suppressionEmailParamSchema = z.string().min(1).max(MAX_LINE_LENGTH);

export const deleteSuppressionResponseSchema = z.object({});
