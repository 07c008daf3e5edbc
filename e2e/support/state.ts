import { readFileSync } from "node:fs";
import path from "node:path";

/** What the global setup produced, for the tests (e2e/artifacts/state-<port>.json). */
export interface E2eState {
  url: string;
  /** The inbound SMTP server's port on 127.0.0.1 (MAILROOM_INBOUND_PORT). */
  inboundPort: number;
  apiKey: string;
  /** The Demo account (the default): its pages are under /a/<accountId> (ADR 0510). */
  accountId: string;
  dashboardKey: string;
  /** The app's dashboard secret (a throwaway of this run): a second app on the same database must share it (docs/adr/0508). */
  dashboardSecret: string;
  dataDir?: string;
  databaseUrl: string;
  pid: number;
  users: Record<"admin" | "support" | "marketing", { email: string; password: string }>;
  messages: { engaged: string; bounced: string; blocked: string; bulk: string[] };
}

export const ARTIFACTS = path.resolve("e2e/artifacts");
/** Per run (the port is unique to it), so that two runs in one working tree do not read each other's state. */
export const STATE_FILE = path.join(ARTIFACTS, `state-${process.env.E2E_PORT ?? "default"}.json`);
/** The Next.js build the app serves (next.config.ts). */
export const DIST_DIR = process.env.NEXT_DIST_DIR || ".next";

export function loadState(): E2eState {
  return JSON.parse(readFileSync(STATE_FILE, "utf8")) as E2eState;
}
