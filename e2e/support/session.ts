import { expect, type Page } from "@playwright/test";
import path from "node:path";
import { ARTIFACTS, loadState } from "./state";

export type RoleName = "admin" | "support" | "marketing";

/** Signs in through the login form and waits to leave it. */
export async function signIn(page: Page, role: RoleName, options: { from?: string } = {}): Promise<void> {
  const { users } = loadState();
  if (options.from) await page.goto(options.from);
  if (!page.url().includes("/login")) await page.goto("/login");
  await page.getByLabel("Email").fill(users[role].email);
  await page.getByLabel("Password").fill(users[role].password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
  // The first-start admin is offered a password change after sign-in (first-sign-in.spec.ts): go on without it.
  if (new URL(page.url()).pathname === "/account/password") {
    await page.getByRole("link", { name: "Not now" }).click();
    await expect(page).not.toHaveURL(/\/account\/password/);
  }
}

export async function shot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: options.fullPage ?? true });
}
