import { mkdtempSync, rmSync, statfsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { shot, signIn } from "./support/session";
import { signInAsAdminOn, startSecondApp, type SecondApp } from "./support/second-app";

/**
 * The banner of a data directory low on space (docs/adr/0007): absent on the
 * run's app (its disk has room), and on a second app of the same database
 * whose thresholds are above what is free, a red banner on every page that
 * says new messages are refused.
 */
test.describe("disk space banner", () => {
  let second: SecondApp | undefined;
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
    dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-e2e-disk-"));
    const s = statfsSync(dataDir);
    const above = String(s.bavail * s.bsize + 1024 ** 3);
    second = await startSecondApp({ MAILROOM_DATA_DIR: dataDir, MAILROOM_DISK_WARN_FREE: above, MAILROOM_DISK_MIN_FREE: above });
    await signInAsAdminOn(page, second.baseUrl);
    const banner = page.getByTestId("disk-space-banner");
    await expect(banner).toBeVisible();
    await expect(banner).toHaveAttribute("data-level", "critical");
    await expect(banner).toContainText("The server's disk is full: new messages are refused");
    await expect(banner).toContainText("MAILROOM_DISK_MIN_FREE");
    await shot(page, "disk-space-banner", { fullPage: false });
  });
});
