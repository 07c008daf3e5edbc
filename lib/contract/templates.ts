import { z } from "zod";
import { MAX_SUBJECT_LENGTH, type EmailRequest } from "./email";
import { withinCodePoints } from "./text";

/**
 * Templates with versions (docs/contract.md §14): the bodies and answers of
 * /templates and the template fields of POST /email. Imports only zod and
 * the contract. The version's Subject, HTMLContent and PlainContent obey the
 * rules of POST /email (checked by lib/domain/templates with the same code);
 * the schemas here describe them for the OpenAPI document.
 */

/** A template's name, in characters (code points). */
export const MAX_TEMPLATE_NAME_LENGTH = 200;
/** Live (not archived) templates an account may hold; one more is refused with 422. */
export const MAX_TEMPLATES_PER_ACCOUNT = 1000;
/** Versions are numbered from 1; a larger number than this is not a version. */
export const MAX_TEMPLATE_VERSION = 2_147_483_647;

export const templateNameSchema = z
  .string()
  .trim()
  .min(1)
  .refine((s) => withinCodePoints(s, MAX_TEMPLATE_NAME_LENGTH), `At most ${MAX_TEMPLATE_NAME_LENGTH} characters`)
  .meta({ maxLength: MAX_TEMPLATE_NAME_LENGTH });

export const templateRequestSchema = z.object({
  Name: templateNameSchema,
  Subject: z.string().min(1).meta({ maxLength: MAX_SUBJECT_LENGTH }).describe("Mustache text: `{{name}}` is not HTML-escaped here"),
  HTMLContent: z.string().optional().describe("Mustache HTML: `{{name}}` is HTML-escaped, `{{{name}}}` is not. HTMLContent or PlainContent is required"),
  PlainContent: z.string().optional().describe("Mustache text: `{{name}}` is not HTML-escaped here"),
});
export type TemplateRequest = z.infer<typeof templateRequestSchema>;

export const templateSavedResponseSchema = z.object({
  TemplateID: z.number().int().positive(),
  Version: z.number().int().positive(),
});
export type TemplateSavedResponse = z.infer<typeof templateSavedResponseSchema>;

const isoMillis = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

/** One version, with its content (GET /templates/{id}/versions/{n}; GET /templates/{id} gives the latest). */
export const templateVersionSchema = z.object({
  TemplateID: z.number().int().positive(),
  Name: z.string(),
  Version: z.number().int().positive(),
  Subject: z.string(),
  HTMLContent: z.string().optional(),
  PlainContent: z.string().optional(),
  CreatedAt: isoMillis,
});
export type TemplateVersion = z.infer<typeof templateVersionSchema>;

/** A version in a list: its number, subject and time, without the bodies. */
export const templateVersionSummarySchema = z.object({ Version: z.number().int().positive(), Subject: z.string(), CreatedAt: isoMillis });
export type TemplateVersionSummary = z.infer<typeof templateVersionSummarySchema>;

export const templateDetailSchema = templateVersionSchema.extend({ Versions: z.array(templateVersionSummarySchema).describe("Newest first") });
export type TemplateDetail = z.infer<typeof templateDetailSchema>;

/** GET /templates: the latest version of each live template, by TemplateID, without the bodies. */
export const listTemplatesResponseSchema = z.object({
  Templates: z.array(z.object({ TemplateID: z.number().int().positive(), Name: z.string(), Version: z.number().int().positive(), Subject: z.string(), UpdatedAt: isoMillis })),
});
export type ListTemplatesResponse = z.infer<typeof listTemplatesResponseSchema>;

/** A JSON object whose members the template's `{{names}}` refer to. */
export const templateModelSchema = z.record(z.string(), z.unknown()).describe("The values of the template's variables; a missing variable renders empty");

export const renderTemplateRequestSchema = z.object({ TemplateModel: templateModelSchema.optional() });
export type RenderTemplateRequest = z.infer<typeof renderTemplateRequestSchema>;

/** POST /templates/render (§14.4): unsaved content and a model; nothing is stored or sent. */
export const renderDraftRequestSchema = templateRequestSchema.omit({ Name: true }).extend({ TemplateModel: templateModelSchema.optional() });
export type RenderDraftRequest = z.infer<typeof renderDraftRequestSchema>;

export const renderTemplateResponseSchema = z.object({
  Subject: z.string(),
  HTMLContent: z.string().optional(),
  PlainContent: z.string().optional(),
});
export type RenderTemplateResponse = z.infer<typeof renderTemplateResponseSchema>;

export const archiveTemplateResponseSchema = z.object({});

/** Path parameters: a positive integer of at most 15 digits (a safe integer). */
export const templateIdParamSchema = z.string().regex(/^[1-9][0-9]{0,14}$/).describe("TemplateID");
export const templateVersionParamSchema = z.string().regex(/^[1-9][0-9]{0,9}$/).refine((s) => Number(s) <= MAX_TEMPLATE_VERSION).describe("Version number");

/** The fields POST /email takes in place of Subject, ContentType, HTMLContent and PlainContent. */
export const TEMPLATE_SEND_FIELDS = ["TemplateID", "TemplateVersion", "TemplateModel"] as const;
/** The fields a template replaces: a request that names a template gives none of them. */
export const TEMPLATE_REPLACED_FIELDS = ["Subject", "ContentType", "HTMLContent", "PlainContent"] as const;

/** POST /email with a template: the request without Subject, ContentType and the bodies, which the rendered version gives. */
export type TemplateEmailRequest = Omit<EmailRequest, (typeof TEMPLATE_REPLACED_FIELDS)[number] | (typeof TEMPLATE_SEND_FIELDS)[number]> & {
  TemplateID: number;
  TemplateVersion?: number;
  TemplateModel?: Record<string, unknown>;
};
