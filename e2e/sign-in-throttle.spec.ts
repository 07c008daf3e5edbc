import { expect, test, type Page } from "@playwright/test";
import { addStaffUser } from "../lib/domain/staff/staff-users";
import { openDatabase } from "../lib/storage/database";
import { loadState } from "./support/state";

/**
 * The sign-in throttle (ADR 0504): 10 failed sign-ins of one email in 15 minutes, then even
 * the right password is refused with the wait, through the form and through
 * a direct POST to Auth.js's callback alike. Dedicated users: the seeded ones
 * must stay usable. Every e2e request comes from 127.0.0.1, which is why the
 * per-address limit (50) is higher than the per-email one (ADR 0504): these
 * 20 failures plus the few of other specs stay under it.
 */

const FORM_USER = { email: "throttle-form@example.com", password: "throttle-form-password" };
const CALLBACK_USER = { email: "throttle-callback@example.com", password: "throttle-callback-password" };

async function withDatabase<T>(work: (db: ReturnType<typeof openDatabase>) => Promise<T>): Promise<T> {
  const database = openDatabase(loadState().databaseUrl, { max: 1 });
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

const failures = (email: string) =>
  withDatabase(async (d) => (await d.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM sign_in_failures WHERE email = $1", [email])).rows[0]!.n);

test.beforeAll(async () => {
  await withDatabase(async (d) => {
    for (const u of [FORM_USER, CALLBACK_USER]) {
      await d.pool.query("DELETE FROM staff_users WHERE email = $1", [u.email]);
      await d.pool.query("DELETE FROM sign_in_failures WHERE email = $1", [u.email]);
      await addStaffUser(d, { ...u, role: "support" });
    }
  });
});

async function submit(page: Page, email: string, password: string) {
  // The previous attempt's answer must have arrived first: React resets the form when it
  // does, which would clear fields typed while it was pending ("Signing in…").
  const button = page.getByRole("button", { name: "Sign in", exact: true });
  await expect(button).toBeEnabled();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await button.click();
}

test("the form: 10 wrong passwords, then the right one is refused with the wait", async ({ page }) => {
  await page.goto("/login");
  for (let i = 1; i <= 10; i++) {
    await submit(page, FORM_USER.email, `wrong-password-${i}`);
    await expect.poll(() => failures(FORM_USER.email)).toBe(i);
    await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password" })).toBeVisible();
  }
  await submit(page, FORM_USER.email, FORM_USER.password);
  const alert = page.getByRole("alert").filter({ hasText: "Too many failed sign-ins" });
  await expect(alert).toContainText(/Too many failed sign-ins\. Try again in 1[45] minutes\./);
  await expect(page).toHaveURL(/\/login/);
  expect(await failures(FORM_USER.email)).toBe(10); // the refused attempt is not counted
  // Another email from the same address still signs in.
  await page.goto("/login");
  await submit(page, CALLBACK_USER.email, CALLBACK_USER.password);
  await expect(page).toHaveURL(/\/events/);
});

test("a direct POST to /api/auth/callback/credentials is throttled alike", async ({ page, playwright, baseURL }) => {
  // A client of its own (a script, not the browser): fetch with the CSRF token of /api/auth/csrf and its cookie.
  const api = await playwright.request.newContext({ baseURL });
  const post = async (password: string) => {
    const { csrfToken } = (await (await api.get("/api/auth/csrf")).json()) as { csrfToken: string };
    const res = await api.post("/api/auth/callback/credentials", {
      form: { email: CALLBACK_USER.email, password, csrfToken, callbackUrl: "/events" },
      maxRedirects: 0,
    });
    expect(res.status()).toBe(302);
    const cookies = res.headersArray().filter((h) => h.name.toLowerCase() === "set-cookie").map((h) => h.value);
    return { location: res.headers().location ?? "", session: cookies.some((c) => /session-token=[^;]/.test(c)) };
  };
  try {
    // The path works: the right password gets a session.
    const ok = await post(CALLBACK_USER.password);
    expect(ok).toMatchObject({ session: true });
    expect(ok.location).toMatch(/\/events$/);

    for (let i = 1; i <= 10; i++) {
      const r = await post(`wrong-password-${i}`);
      expect(r.location).toMatch(/\/login\?error=CredentialsSignin&code=credentials$/);
      expect(r.session).toBe(false);
    }
    const refused = await post(CALLBACK_USER.password);
    expect(refused.session).toBe(false);
    expect(refused.location).toMatch(/\/login\?error=CredentialsSignin&code=throttled-\d+$/);
    expect(await failures(CALLBACK_USER.email)).toBe(10);

    // Where Auth.js sends the browser, the wait is spelled out.
    await page.goto(refused.location);
    await expect(page.getByRole("alert").filter({ hasText: "Too many failed sign-ins" })).toHaveText(/Too many failed sign-ins\. Try again in 1[45] minutes\./);
  } finally {
    await api.dispose();
  }
});
