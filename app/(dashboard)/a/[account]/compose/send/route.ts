import { z } from "zod";
import { sameOriginRoute } from "@/lib/dashboard/route-guard";
import { ApiRequestError, describeApiError, readBytes } from "@/lib/dashboard/public-api";
import { accessForRoute } from "@/lib/dashboard/access";
import { apiFor } from "@/lib/dashboard/api-for";
import { emailRequestSchema, MAX_MESSAGE_BYTES } from "@/lib/contract/email";
import { mapApiErrors } from "../_lib/api-errors";
import { fieldPath, toEmailRequest, validateDraft, type Draft } from "../_lib/draft";

export const dynamic = "force-dynamic";

/**
 * POST /a/<account>/compose/send (multipart), as that account: the compose form's draft as JSON (`draft`)
 * and its files (`file0`, `file1`, ...). A route handler rather than a
 * server action: the browser sends it with XMLHttpRequest, whose upload
 * progress a server action cannot report, and a server action's body is
 * capped at 1 MB (docs/adr/0600-compose-upload-route.md). Same rules as
 * every action: the role check first, the input treated as untrusted, the
 * request validated with the contract's zod schema, then POST /email
 * through the API client. Answers `{ok, messageId}` or `{ok:false, errors}`
 * with errors keyed by the form's fields.
 */

const addressSchema = z.object({ name: z.string().max(998), email: z.string().max(998) });
const draftSchema = z.object({
  from: z.object({ local: z.string().max(998), domain: z.string().max(253), name: z.string().max(998) }),
  to: z.array(addressSchema).max(100),
  cc: z.array(addressSchema).max(100),
  bcc: z.array(addressSchema).max(100),
  replyTo: z.array(addressSchema).max(100),
  subject: z.string(),
  html: z.string(),
  text: z.string(),
  tags: z.string().max(10_000),
  headers: z.array(z.object({ name: z.string().max(998), value: z.string() })).max(200),
  attachments: z
    .array(
      z.object({
        filename: z.string().min(1).max(1000),
        type: z.string().max(255),
        size: z.number().int().nonnegative(),
        disposition: z.enum(["attachment", "inline"]),
        contentId: z.string().max(255),
      }),
    )
    .max(500),
}) satisfies z.ZodType<Draft>;

/**
 * The largest upload read: the API's 10 MB of bodies and files, plus JSON
 * escaping of the draft and multipart framing. Equal to next.config.ts's
 * proxyClientMaxBodySize, which only truncates; this refuses.
 */
const MAX_UPLOAD_BYTES = 16 * 1024 * 1024;

function refuse(errors: Record<string, string>, status = 400): Response {
  return Response.json({ ok: false, errors }, { status });
}

export const POST = sameOriginRoute(async (request: Request, context: { params: Promise<{ account: string }> }): Promise<Response> => {
  const access = await accessForRoute((await context.params).account, "compose");
  if (access instanceof Response) return access;
  // Bounded before it is read, with or without Content-Length (see MAX_UPLOAD_BYTES).
  const bytes = await readBytes(request, MAX_UPLOAD_BYTES);
  if (!bytes) return refuse({ _form: "The message and its files are larger than 16 MB. Remove some files." }, 413);
  let form: FormData;
  try {
    form = await new Request(request.url, { method: "POST", headers: request.headers, body: bytes as Uint8Array<ArrayBuffer> }).formData();
  } catch {
    return refuse({ _form: "The upload did not arrive complete. Send again." });
  }
  let json: unknown;
  try {
    json = JSON.parse(String(form.get("draft") ?? ""));
  } catch {
    json = undefined;
  }
  const parsedDraft = draftSchema.safeParse(json);
  if (!parsedDraft.success) return refuse({ _form: "The form's content did not arrive intact. Reload the page and try again." });
  const draft = parsedDraft.data;

  // The files: their real sizes replace what the browser said.
  const contents: string[] = [];
  let total = 0;
  for (let i = 0; i < draft.attachments.length; i++) {
    const file = form.get(`file${i}`);
    if (!(file instanceof Blob)) return refuse({ [`Attachments[${i}]`]: "This file did not arrive. Remove it and attach it again." });
    total += file.size;
    if (total > MAX_MESSAGE_BYTES) return refuse({ Attachments: "Bodies and attachments together exceed 10 MB" });
    draft.attachments[i]!.size = file.size;
    contents.push(Buffer.from(await file.arrayBuffer()).toString("base64"));
  }

  const errors = validateDraft(draft);
  if (Object.keys(errors).length > 0) return refuse(errors);
  const emailRequest = toEmailRequest(draft, contents);
  const checked = emailRequestSchema.safeParse(emailRequest);
  if (!checked.success) {
    return refuse(Object.fromEntries(checked.error.issues.map((issue) => [fieldPath(issue.path) || "_form", issue.message])));
  }

  try {
    const { MessageID } = await (await apiFor(access, "compose")).sendEmail(checked.data);
    return Response.json({ ok: true, messageId: MessageID });
  } catch (err) {
    if (err instanceof ApiRequestError && err.errors.length > 0 && err.status !== 401) {
      return refuse(mapApiErrors(err.errors, draft), err.status === 429 ? 429 : 400);
    }
    return refuse({ _form: describeApiError(err) }, 502);
  }
});
