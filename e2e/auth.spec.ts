import { expect, test } from "@playwright/test";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

test("an admin signs in with the first-start credentials and signs out", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/login/);
  await shot(page, "login");
  await signIn(page, "admin");
  await expect(page).toHaveURL(/\/a\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await expect(page.getByTestId("current-user")).toHaveText(loadState().users.admin.email);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  // The session is gone: a page sends us back to the sign-in form.
  await page.goto("/events");
  await expect(page).toHaveURL(/\/login/);
});

test("a wrong password is refused with a message, the email is kept", async ({ page }) => {
  await page.goto("/login");
  await page.getByLabel("Email").fill(loadState().users.admin.email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password" })).toBeVisible();
  await expect(page.getByLabel("Email")).toHaveValue(loadState().users.admin.email);
  await expect(page).toHaveURL(/\/login/);
});

test("signing in returns to the page that was asked for", async ({ page }) => {
  await page.goto("/events?type=failed");
  await expect(page).toHaveURL(/\/login\?callbackUrl=/);
  await signIn(page, "support");
  await expect(page).toHaveURL(/\/events\?type=failed$/);
});
