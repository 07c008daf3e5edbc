import { mkdtempSync, rmSync, statfsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { shot, signIn } from "./support/session";
import { freePort, startApp, type StartedApp } from "./support/start-app";
import { loadState } from "./support/state";

/**
 * The banner of a data directory low on space (docs/adr/0007): absent on the
 * run's app (its disk has room), and on a second app of the same database
 * whose thresholds are above what is free, a red banner on every page that
 * says new messages are refused.
 */
test.describe("disk space banner", () => {
  let second: StartedApp | undefined;
  let dataDir: string | undefined;
  test.afterAll(() => {
    second?.child.kill("SIGTERM");
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test("is absent while the disk has room", async ({ page }) => {
    await signIn(page, "admin");
    await expect(page.getByTestId("current-user")).toBeVisible();
    await expect(page.getByTestId("disk-space-banner")).toHaveCount(0);
  });

  test("says that the disk is full and new messages are refused below MAILROOM_DISK_MIN_FREE", async ({ page }) => {
    test.setTimeout(180_000);
    const { databaseUrl, dashboardSecret, users } = loadState();
    dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-e2e-disk-"));
    const s = statfsSync(dataDir);
    const above = String(s.bavail * s.bsize + 1024 ** 3);
    second = await startApp({
      PORT: String(await freePort()),
      DATABASE_URL: databaseUrl,
      // The same secret as the first app: on DATABASE_URL it is required, and another would revoke its dashboard keys (docs/adr/0508).
      AUTH_SECRET: dashboardSecret,
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_DISK_WARN_FREE: above,
      MAILROOM_DISK_MIN_FREE: above,
      MAILROOM_WORKERS: "off",
      MAILROOM_INBOUND_PORT: "0",
      MAILROOM_SUBMISSION_PORT: "0",
      MAILROOM_SUBMISSION_TLS_PORT: "0",
      MAILROOM_SANDBOX_PORT: "0",
      LOG_LEVEL: "warn",
    });
    const url = second.url.replace("localhost", "127.0.0.1");
    await page.goto(`${url}/login`);
    await page.getByLabel("Email").fill(users.admin.email);
    await page.getByLabel("Password").fill(users.admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).not.toHaveURL(/\/login/);
    const banner = page.getByTestId("disk-space-banner");
    await expect(banner).toBeVisible();
    await expect(banner).toHaveAttribute("data-level", "critical");
    await expect(banner).toContainText("The server's disk is full: new messages are refused");
    await expect(banner).toContainText("MAILROOM_DISK_MIN_FREE");
    await shot(page, "disk-space-banner", { fullPage: false });
  });
});
