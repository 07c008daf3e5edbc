import { readFileSync } from "node:fs";
import path from "node:path";

/** What the global setup produced, for the tests (e2e/artifacts/state.json). */
export interface E2eState {
  url: string;
  apiKey: string;
  dashboardKey: string;
  dataDir?: string;
  databaseUrl: string;
  pid: number;
  users: Record<"admin" | "support" | "marketing", { email: string; password: string }>;
  messages: { engaged: string; bounced: string; blocked: string; bulk: string[] };
}

export const ARTIFACTS = path.resolve("e2e/artifacts");
export const STATE_FILE = path.join(ARTIFACTS, "state.json");

export function loadState(): E2eState {
  return JSON.parse(readFileSync(STATE_FILE, "utf8")) as E2eState;
}
