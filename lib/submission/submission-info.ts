import type { AppContext } from "../context";

/**
 * What the running submission server listens on, for the dashboard's
 * Settings card and `mailroom smtp-test`. Kept on globalThis: Next.js
 * bundles get their own module instances (docs/stack.md §3).
 */
export interface SubmissionInfo {
  host: string;
  /** STARTTLS port; undefined when off. */
  port?: number;
  /** Implicit TLS port; undefined when off (or no certificate). */
  tlsPort?: number;
  tls: "configured" | "self-signed" | "none";
}

const KEY = Symbol.for("mailroom.submission");
type Holder = { [KEY]?: WeakMap<object, SubmissionInfo> };
function registry(): WeakMap<object, SubmissionInfo> {
  const holder = globalThis as Holder;
  holder[KEY] ??= new WeakMap();
  return holder[KEY];
}
export function setSubmissionInfo(ctx: AppContext, info: SubmissionInfo | undefined): void {
  if (info) registry().set(ctx, info);
  else registry().delete(ctx);
}
export function getSubmissionInfo(ctx: AppContext): SubmissionInfo | undefined {
  return registry().get(ctx);
}
