import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildConfig } from "../../lib/config";
import { startServer, type RunningServer, type StartOptions } from "../../server";
import { createTestDatabase } from "./test-database";

export interface TestApp extends RunningServer {
  /** fetch() against the app, with the path relative to its origin. */
  fetch(pathname: string, init?: RequestInit): Promise<Response>;
}

/**
 * Starts the real server (without the Next.js dashboard) on a fresh database
 * and an ephemeral port, with test-friendly defaults that `env` can override.
 */
export async function startTestApp(env: Record<string, string> = {}, options: Pick<StartOptions, "dashboardHandler" | "workers"> = {}): Promise<TestApp> {
  const databaseUrl = env.DATABASE_URL ?? (await createTestDatabase());
  const config = buildConfig({
    NODE_ENV: "test",
    DATABASE_URL: databaseUrl,
    MAILROOM_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "mailroom-test-data-")),
    PORT: "0",
    // One process: the tests look at the workers' effects through this process (process mode: test/integration/worker-processes.test.ts).
    MAILROOM_WORKERS: "inline",
    MAILROOM_INBOUND_PORT: "0",
    MAILROOM_SUBMISSION_PORT: "0",
    MAILROOM_SUBMISSION_TLS_PORT: "0",
    MAILROOM_SANDBOX_PORT: "0",
    MAILROOM_ALLOW_PRIVATE_WEBHOOKS: "true",
    MAILROOM_QUIET_START: "true",
    LOG_LEVEL: "silent",
    ...env,
  });
  const server = await startServer({ config, dashboard: false, ...options });
  return {
    ...server,
    fetch: (pathname, init) => fetch(server.url + pathname, init),
  };
}
