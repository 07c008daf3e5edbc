import { test } from "@playwright/test";
import { signIn } from "./support/session";

test("scratch", async ({ page }) => {
  await signIn(page, "admin");
  await page.goto("/compose");
  await page.getByLabel("HTML", { exact: true }).fill("<h1>Hello</h1><p style='color:red'>World</p>");
  await page.waitForTimeout(1000);
  const frame = page.frameLocator('[data-testid="html-preview"]');
  console.log("h1:", await frame.locator("h1").textContent());
  console.log("srcdoc:", await page.getByTestId("html-preview").getAttribute("srcdoc"));
  await page.getByTestId("html-preview").scrollIntoViewIfNeeded();
  await page.screenshot({ path: "e2e/artifacts/zz-preview-viewport.png" });
  await page.screenshot({ path: "e2e/artifacts/zz-preview-full.png", fullPage: true });
});
