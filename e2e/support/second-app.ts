import type { Page } from "@playwright/test";
import { expect } from "@playwright/test";
import { freePort, startApp, type StartedApp } from "./start-app";
import { loadState } from "./state";

/**
 * A second app of the run's database, API and dashboard only (no workers, no
 * SMTP ports), for a spec that needs one configured otherwise (a full disk,
 * a database behind a relay). `env` overrides; the run's dashboard secret is
 * kept: another would revoke the first app's dashboard keys (docs/adr/0508).
 */
export type SecondApp = StartedApp & { baseUrl: string };

export async function startSecondApp(env: Record<string, string>): Promise<SecondApp> {
  const { databaseUrl, dashboardSecret } = loadState();
  const app = await startApp({
    PORT: String(await freePort()),
    DATABASE_URL: databaseUrl,
    AUTH_SECRET: dashboardSecret,
    MAILROOM_WORKERS: "off",
    MAILROOM_INBOUND_PORT: "0",
    MAILROOM_SUBMISSION_PORT: "0",
    MAILROOM_SUBMISSION_TLS_PORT: "0",
    MAILROOM_SANDBOX_PORT: "0",
    LOG_LEVEL: "warn",
    ...env,
  });
  return { ...app, baseUrl: app.url.replace("localhost", "127.0.0.1") };
}

/** Signs in on `baseUrl` as the run's admin, through the form. */
export async function signInAsAdminOn(page: Page, baseUrl: string): Promise<void> {
  const { users } = loadState();
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel("Email").fill(users.admin.email);
  await page.getByLabel("Password").fill(users.admin.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
}
