"use server";

import { z } from "zod";
import { ApiRequestError, describeApiError } from "@/lib/dashboard/public-api";
import { refuse, staffAction } from "@/lib/dashboard/action";
import { apiFor } from "@/lib/dashboard/api-for";
import { composeDomains } from "@/lib/dashboard/compose";
import type { AccountAccess } from "@/lib/dashboard/decide";

/**
 * Templates (admin and support of the account), all through the public API
 * as the account (docs/contract.md §14): create, save a version, archive,
 * the preview of unsaved edits (POST /templates/render), a test send, and loading one into Compose.
 */

const templateId = z.coerce.number({ error: "Not a template id" }).int().positive().max(Number.MAX_SAFE_INTEGER);
const version = z.coerce.number().int().positive().max(2_147_483_647).optional();
// Bounded here; the API decides the rules (its 1 MiB per version among them).
const content = z.object({
  Name: z.string().max(1000),
  Subject: z.string().max(10_000),
  HTMLContent: z.string().max(2 * 1024 * 1024),
  PlainContent: z.string().max(2 * 1024 * 1024),
});
const FIELDS = ["Name", "Subject", "HTMLContent", "PlainContent", "TemplateModel"];

type Content = z.infer<typeof content>;
const request = (c: Content) => ({
  Name: c.Name,
  Subject: c.Subject,
  ...(c.HTMLContent !== "" && { HTMLContent: c.HTMLContent }),
  ...(c.PlainContent !== "" && { PlainContent: c.PlainContent }),
});

/** An API refusal that names a field of the form: said next to that field. */
function refuseNamed(err: unknown): never {
  if (err instanceof ApiRequestError) {
    const fieldErrors: Record<string, string> = {};
    for (const e of err.errors) if (e.Field && FIELDS.includes(e.Field)) fieldErrors[e.Field] ??= e.Message;
    if (err.status === 404) refuse("That template does not exist any more (archived?)");
    refuse(describeApiError(err), fieldErrors);
  }
  throw err;
}

export const createTemplateAction = staffAction(
  "templates",
  content,
  async (input, access) => {
    try {
      const saved = await (await apiFor(access, "templates")).createTemplate(request(input));
      return { id: saved.TemplateID };
    } catch (err) {
      refuseNamed(err);
    }
  },
  { revalidate: "/templates" },
);

export const saveTemplateAction = staffAction(
  "templates",
  content.extend({ id: templateId }),
  async (input, access) => {
    try {
      const saved = await (await apiFor(access, "templates")).updateTemplate(input.id, request(input));
      return { version: saved.Version };
    } catch (err) {
      refuseNamed(err);
    }
  },
  { revalidate: "/templates" },
);

export const archiveTemplateAction = staffAction(
  "templates",
  templateId,
  async (id, access) => {
    try {
      await (await apiFor(access, "templates")).archiveTemplate(id);
      return null;
    } catch (err) {
      refuseNamed(err);
    }
  },
  { revalidate: "/templates" },
);

/** The sample model, typed as JSON in the editor: an object, else the field's error. */
function modelOf(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    refuse("The sample model is not JSON", { TemplateModel: "Not JSON: write an object such as {\"name\": \"Ann\"}" });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) refuse("The sample model must be a JSON object", { TemplateModel: "A JSON object, such as {\"name\": \"Ann\"}" });
  return value as Record<string, unknown>;
}

const modelInput = z.object({ id: templateId, version, model: z.string().max(1024 * 1024) });

/** The editor's preview: what is being typed (not saved), rendered with the sample model by the API, as a save would check it. */
export const renderDraftAction = staffAction("templates", content.omit({ Name: true }).extend({ model: z.string().max(1024 * 1024) }), async (input, access) => {
  try {
    return await (await apiFor(access, "templates")).renderTemplateDraft({ ...request({ ...input, Name: "" }), TemplateModel: modelOf(input.model) });
  } catch (err) {
    refuseNamed(err);
  }
});

/** Sends the template with the sample model to one address, From the account's first verified domain (in sandbox mode, it lands in the Sandbox inbox). */
export const sendTestAction = staffAction(
  "templates",
  modelInput.extend({ to: z.string().trim().min(3, "Enter an address").max(254) }),
  async (input, access: AccountAccess) => {
    const domain = (await composeDomains(access)).find((d) => d.verified);
    if (!domain) refuse("The account has no verified sender domain to send from");
    try {
      const { MessageID } = await (await apiFor(access, "templates")).sendEmail({
        From: { name: "Template test", email: `templates@${domain.name}` },
        To: [{ name: "", email: input.to }],
        TemplateID: input.id,
        ...(input.version !== undefined && { TemplateVersion: input.version }),
        TemplateModel: modelOf(input.model),
        Tags: ["template-test"],
      });
      return { messageId: MessageID };
    } catch (err) {
      if (err instanceof ApiRequestError && err.errors.some((e) => e.Field?.startsWith("To"))) refuse("The API refused the address", { to: "Not an address the API accepts" });
      refuseNamed(err);
    }
  },
);

/** Compose starts from a template: its latest Subject and bodies, as text to edit (the variables are not rendered). */
export const loadTemplateAction = staffAction("compose", templateId, async (id, access) => {
  const detail = await (await apiFor(access, "compose")).getTemplate(id);
  if (!detail) refuse("That template does not exist any more");
  return { subject: detail.Subject, html: detail.HTMLContent ?? "", text: detail.PlainContent ?? "" };
});
