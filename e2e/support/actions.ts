import { readFileSync } from "node:fs";
import path from "node:path";
import type { APIRequestContext } from "@playwright/test";
import { DIST_DIR } from "./state";

/**
 * Calls a server action the way the browser does (POST with a Next-Action
 * header), by its id from the build's manifest: proof that the check inside
 * the action holds for a caller that bypasses the UI.
 */
export function actionId(exportedName: string, filename: string): string {
  const manifest = JSON.parse(readFileSync(path.join(DIST_DIR, "server/server-reference-manifest.json"), "utf8")) as {
    node: Record<string, { filename: string; exportedName: string }>;
  };
  const hit = Object.entries(manifest.node).find(([, v]) => v.exportedName === exportedName && v.filename === filename);
  if (!hit) throw new Error(`no server action ${exportedName} in ${filename}`);
  return hit[0];
}

export async function callAction(request: APIRequestContext, path: string, id: string, args: unknown[], headers: Record<string, string> = {}) {
  const res = await request.post(path, {
    headers: { "Next-Action": id, "Content-Type": "text/plain;charset=UTF-8", Accept: "text/x-component", ...headers },
    data: JSON.stringify(args),
    maxRedirects: 0,
  });
  return { status: res.status(), body: await res.text(), headers: res.headers() };
}
