import type { z } from "zod";
import { errorItem, type ApiErrorItem } from "../contract/errors";

/** A parameter sent empty (`?Event=`, as HTML forms do) is treated as absent. */
export function withoutEmpty(raw: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== ""));
}

/** Parses a query with a contract schema; violations become 422 errors naming their parameter in `Field`. */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  raw: Record<string, string>,
): { ok: true; data: z.output<S> } | { ok: false; errors: ApiErrorItem[] } {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, data: parsed.data };
  const fields: string[] = [];
  for (const issue of parsed.error.issues) {
    const field = issue.path.length > 0 ? String(issue.path[0]) : undefined;
    if (field && !fields.includes(field)) fields.push(field);
  }
  return { ok: false, errors: fields.length > 0 ? fields.map((f) => errorItem(422, f)) : [errorItem(422)] };
}
