import type { Context } from "hono";
import type { z } from "zod";
import { errorItem, type ApiErrorItem } from "../contract/errors";
import { readJsonBody } from "./body";
import { errorResponse } from "./errors";

/**
 * How a contract schema's verdict on client input becomes the error envelope
 * of docs/contract.md §4: one 422 per offending parameter or member, named in
 * `Field`, in the order of the schema's fields; input that is not even an
 * object (no path) is one 422 without `Field`.
 */
export function validationErrors(issues: readonly z.core.$ZodIssue[]): ApiErrorItem[] {
  const fields: string[] = [];
  for (const issue of issues) {
    const field = issue.path.length > 0 ? String(issue.path[0]) : undefined;
    if (field !== undefined && !fields.includes(field)) fields.push(field);
  }
  return fields.length > 0 ? fields.map((f) => errorItem(422, f)) : [errorItem(422)];
}

/**
 * The `defaultHook` of the /api/v1 OpenAPIHono app: every query and path
 * parameter schema declared with `createRoute` reports through it.
 */
export function validationHook(result: { success: true } | { success: false; error: z.ZodError }, c: Context): Response | undefined {
  return result.success ? undefined : errorResponse(c, validationErrors(result.error.issues));
}

/**
 * A JSON body read with the byte cap (whatever its Content-Type, docs/contract.md
 * §2: liberal in what we accept) and checked by a contract schema. Malformed,
 * too large or invalid → the 422 envelope, rendered as the hook renders.
 */
export async function readValidJson<S extends z.ZodType>(
  c: Context,
  schema: S,
  maxBytes: number,
): Promise<{ ok: true; data: z.output<S> } | { ok: false; response: Response }> {
  const body = await readJsonBody(c.req.raw, maxBytes);
  if (!body.ok) return { ok: false, response: errorResponse(c, [errorItem(422)]) };
  const parsed = schema.safeParse(body.value);
  if (!parsed.success) return { ok: false, response: errorResponse(c, validationErrors(parsed.error.issues)) };
  return { ok: true, data: parsed.data };
}
