import type { AppContext } from "./context";

/**
 * The running process's context, for code that Next.js bundles (dashboard
 * server components, server actions, Auth.js). Next's bundles get their own
 * module instances, so the context lives on globalThis (docs/stack.md §3).
 */
const KEY = Symbol.for("mailroom.context");
type Holder = { [KEY]?: AppContext };

export function setServerContext(ctx: AppContext): void {
  (globalThis as Holder)[KEY] = ctx;
}

export function getServerContext(): AppContext {
  const ctx = (globalThis as Holder)[KEY];
  if (!ctx) throw new Error("Mailroom is not started: the dashboard runs inside server.ts");
  return ctx;
}
