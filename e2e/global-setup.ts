import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { getDefaultAccount } from "../lib/domain/accounts/accounts";
import { getDashboardApiKey } from "../lib/domain/staff/bootstrap";
import { readAuthSecretFile } from "../lib/domain/staff/dashboard-auth-secret";
import { addStaffUser } from "../lib/domain/staff/staff-users";
import { openDatabase } from "../lib/storage/database";
import { startEmbeddedPostgres } from "../lib/storage/embedded";
import { freePort, startApp } from "./support/start-app";
import { seedTraffic } from "./support/seed";
import { ARTIFACTS, STATE_FILE, type E2eState } from "./support/state";

/**
 * Starts the app as the README does, on a fresh data directory (embedded
 * PostgreSQL) unless DATABASE_URL names a server, with the port of
 * playwright.config.ts; then adds a support and a marketing user and sends
 * real traffic. The state goes to e2e/artifacts/state-<port>.json.
 */
export default async function globalSetup() {
  mkdirSync(ARTIFACTS, { recursive: true });
  const port = process.env.E2E_PORT!;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-e2e-"));
  // A known port, so that the inbound spec can send mail to it.
  const inboundPort = await freePort();
  const env: Record<string, string> = {
    PORT: port,
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_EMBEDDED_PG_PORT: "0",
    MAILROOM_INBOUND_PORT: String(inboundPort),
    MAILROOM_SUBMISSION_PORT: "0",
    MAILROOM_SUBMISSION_TLS_PORT: "0",
    MAILROOM_SANDBOX_PORT: "0",
    LOG_LEVEL: "warn",
    // The webhooks spec registers a receiver on 127.0.0.1 and watches a retry (docs/dashboard-admin.md).
    MAILROOM_ALLOW_PRIVATE_WEBHOOKS: "true",
    MAILROOM_WEBHOOK_RETRY_SCHEDULE: "1s,2s,2s,2s,2s,2s,2s",
    // On a PostgreSQL server the dashboard needs AUTH_SECRET (docs/adr/0508); else it is generated in the data directory.
    ...(process.env.DATABASE_URL && !process.env.AUTH_SECRET && { AUTH_SECRET: randomBytes(32).toString("base64url") }),
  };
  const app = await startApp(env);
  const stop = () => app.child.kill("SIGTERM");
  try {
    if (!app.apiKey || !app.adminEmail || !app.adminPassword) {
      throw new Error(`no first-start report (use a fresh database):\n${app.output()}`);
    }
    const databaseUrl = process.env.DATABASE_URL ?? (await startEmbeddedPostgres({ dataDir, port: 0 })).url;
    const database = openDatabase(databaseUrl, { max: 2 });
    const users: E2eState["users"] = {
      admin: { email: app.adminEmail, password: app.adminPassword },
      support: { email: "support@example.com", password: "support-password-1" },
      marketing: { email: "marketing@example.com", password: "marketing-password-1" },
    };
    let dashboardKey = "";
    let dashboardSecret = "";
    let accountId = "";
    try {
      await addStaffUser(database, { ...users.support, role: "support", name: "Sam Support" });
      await addStaffUser(database, { ...users.marketing, role: "marketing", name: "Mia Marketing" });
      // The Demo account's dashboard key (made on demand, stored sealed), for the bundle scan.
      const secret = process.env.AUTH_SECRET ?? env.AUTH_SECRET ?? (await readAuthSecretFile(dataDir));
      if (!secret) throw new Error(`no dashboard secret in ${dataDir}`);
      dashboardSecret = secret;
      dashboardKey = (await getDashboardApiKey(database, { secret })) ?? "";
      accountId = (await getDefaultAccount(database))?.id ?? "";
    } finally {
      await database.close();
    }
    const messages = await seedTraffic(app.url, app.apiKey, databaseUrl);
    const state: E2eState = { url: app.url, inboundPort, apiKey: app.apiKey, accountId, dashboardKey, dashboardSecret, dataDir, databaseUrl, pid: app.child.pid!, users, messages };
    writeFileSync(STATE_FILE, JSON.stringify(state, null, 2));
    (globalThis as { __mailroomApp?: typeof app }).__mailroomApp = app;
  } catch (err) {
    stop();
    throw err;
  }
}
