import { z } from "zod";

/**
 * The query string as a route's `request.query` schema sees it. Hono's query
 * validator hands over every parameter, repeated ones as arrays; the API has
 * always read the first value, treated a parameter sent empty (`?Event=`, as
 * HTML forms do) as absent, and accepted documented aliases (`MessageId` for
 * `MessageID`) when the canonical name is not given.
 */
export function normaliseQuery(raw: unknown, aliases: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (typeof raw !== "object" || raw === null) return out;
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === "string" && first !== "") out[name] = first;
  }
  for (const [alias, name] of Object.entries(aliases)) {
    if (out[name] === undefined && out[alias] !== undefined) out[name] = out[alias];
    delete out[alias];
  }
  return out;
}

/**
 * A contract query schema behind `normaliseQuery`. The OpenAPI generator
 * documents the inner object's parameters; the aliases are documented by
 * the route itself.
 */
export function queryInput<S extends z.ZodObject>(schema: S, aliases: Record<string, string> = {}): z.ZodPipe<z.ZodTransform<Record<string, string>, unknown>, S> {
  // zod's types cannot tell that the normalised strings are the schema's input; the schema checks every one of them.
  return z.pipe(z.transform((raw: unknown) => normaliseQuery(raw, aliases)), schema as never);
}
