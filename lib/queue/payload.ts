import type { QueueSpec } from "../jobs/job-definition";

export type ParsedPayload<T> = { ok: true; data: T } | { ok: false; reason: string };

/** A fetched job's data checked against its queue's schema; the reason names the first few bad fields. */
export function parsePayload<T>(spec: QueueSpec<T>, data: unknown): ParsedPayload<T> {
  const parsed = spec.schema.safeParse(data);
  if (parsed.success) return { ok: true, data: parsed.data };
  const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.length > 0 ? i.path.join(".") : "payload"}: ${i.message}`);
  return { ok: false, reason: `Invalid ${spec.name} payload (${issues.join("; ")}); not retried` };
}
