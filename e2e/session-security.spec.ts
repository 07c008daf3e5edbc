import { expect, test, type Page } from "@playwright/test";
import { encode } from "@auth/core/jwt";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createAccount } from "../lib/domain/accounts/accounts";
import { addStaffUser, grantMembership, removeStaffUser } from "../lib/domain/staff/staff-users";
import { openDatabase, type Database } from "../lib/storage/database";
import { startEmbeddedPostgres } from "../lib/storage/embedded";
import { runCli } from "../test/integration/cli-support";
import { startApp, type StartedApp } from "./support/start-app";
import { loadState } from "./support/state";

/**
 * Dashboard sessions against the real server (docs/adr/0506, 0507, 0508):
 * cross-site requests to the cookie-authenticated route handlers are
 * refused; a password reset, a role change, a revoked membership, a removal
 * and "sign out everywhere" end the user's existing sessions; the session
 * secret is never in the database. Sessions are real: signed in through
 * Auth.js's credentials callback, the cookie kept and replayed.
 */

const SESSION_COOKIE = "authjs.session-token";

/** Signs in over HTTP (Auth.js's CSRF token, then the credentials callback) and returns the session cookie. */
async function signInHttp(base: string, email: string, password: string): Promise<string> {
  const csrf = await fetch(`${base}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const csrfCookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const res = await fetch(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: csrfCookie, Origin: base },
    body: new URLSearchParams({ email, password, csrfToken, callbackUrl: `${base}/` }),
  });
  const session = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!session) throw new Error(`no session for ${email}: HTTP ${res.status} ${res.headers.get("location")}`);
  return session.split(";")[0]!;
}

function exportUrl(base: string, accountId: string) {
  return `${base}/a/${accountId}/events/export?range=24h`;
}

async function exportStatus(base: string, accountId: string, cookie: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(exportUrl(base, accountId), { headers: { Cookie: cookie, ...headers }, redirect: "manual" });
  await res.body?.cancel();
  return res.status;
}

function draftForm(subject: string): FormData {
  const form = new FormData();
  const draft = {
    from: { local: "csrf", domain: "example.com", name: "Cross Site" },
    to: [{ name: "Ann", email: "ann.csrf@example.org" }],
    cc: [],
    bcc: [],
    replyTo: [],
    subject,
    html: "<p>hello</p>",
    text: "hello",
    tags: "",
    headers: [],
    attachments: [],
  };
  form.set("draft", JSON.stringify(draft));
  return form;
}

let database: Database;
let seq = 0;
test.beforeAll(async () => {
  const state = loadState();
  database = openDatabase(state.databaseUrl, { max: 2 });
});
const created: string[] = [];
test.afterAll(async () => {
  // Gone again: an admin left in the Demo account would make the first-start admin no longer its last admin (settings.spec.ts).
  for (const email of created) await removeStaffUser(database, email).catch(() => {});
  await database?.close();
});

/** A fresh staff user of the Demo account (never one the other specs use); removed after the spec. */
async function newUser(role: "admin" | "support" | "marketing", options: { owner?: boolean } = {}): Promise<{ email: string; password: string }> {
  const email = `session-${Date.now()}-${++seq}@example.com`;
  const password = `pw-${randomBytes(9).toString("base64url")}`;
  await addStaffUser(database, { email, password, role, accountId: loadState().accountId, owner: options.owner });
  created.push(email);
  return { email, password };
}

function cliEnv(): Record<string, string | undefined> {
  return { DATABASE_URL: loadState().databaseUrl };
}

async function cli(args: string[]): Promise<void> {
  const r = await runCli(args, cliEnv());
  expect(r.code, `mailroom ${args.join(" ")}: ${r.stderr}`).toBe(0);
}

test.describe("cross-site requests to route handlers", () => {
  test("compose/send with a session cookie: refused from another site (no message), sent from the dashboard's origin", async () => {
    const { url, accountId } = loadState();
    const user = await newUser("support");
    const cookie = await signInHttp(url, user.email, user.password);
    const send = (subject: string, headers: Record<string, string>) =>
      fetch(`${url}/a/${accountId}/compose/send`, { method: "POST", headers: { Cookie: cookie, ...headers }, body: draftForm(subject) });
    const count = async (subject: string) => Number((await database.pool.query("SELECT count(*)::int AS n FROM messages WHERE subject = $1", [subject])).rows[0].n);

    const refused: Record<string, string>[] = [
      { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" },
      { Origin: "https://evil.example" },
      { "Sec-Fetch-Site": "cross-site" },
      { Origin: "http://sibling.localhost", "Sec-Fetch-Site": "same-site" },
      { Origin: "null" },
    ];
    for (const headers of refused) {
      const subject = `Cross site ${Date.now()} ${JSON.stringify(headers)}`;
      const res = await send(subject, headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.headers.get("content-type")).toMatch(/application\/json/);
      expect(await res.json()).toMatchObject({ error: expect.stringMatching(/^Refused/) });
      expect(await count(subject)).toBe(0);
    }
    const subject = `Same origin ${Date.now()}`;
    const ok = await send(subject, { Origin: url, "Sec-Fetch-Site": "same-origin" });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ ok: true });
    expect(await count(subject)).toBe(1);
  });

  test("GET downloads (export, the legacy export URL, sandbox raw) refuse cross-site and same-site, serve same-origin and typed URLs", async () => {
    const { url, accountId } = loadState();
    const user = await newUser("admin");
    const cookie = await signInHttp(url, user.email, user.password);
    expect(await exportStatus(url, accountId, cookie, { "Sec-Fetch-Site": "cross-site" })).toBe(403);
    expect(await exportStatus(url, accountId, cookie, { "Sec-Fetch-Site": "same-site" })).toBe(403);
    expect(await exportStatus(url, accountId, cookie, { Origin: "https://evil.example" })).toBe(403);
    expect(await exportStatus(url, accountId, cookie, { "Sec-Fetch-Site": "same-origin" })).toBe(200);
    expect(await exportStatus(url, accountId, cookie, { "Sec-Fetch-Site": "none" })).toBe(200);
    for (const pathname of ["/events/export", `/a/${accountId}/sandbox/1/raw`, `/a/${accountId}/sandbox/1/attachments/0`]) {
      const res = await fetch(url + pathname, { headers: { Cookie: cookie, "Sec-Fetch-Site": "cross-site" }, redirect: "manual" });
      expect(res.status, pathname).toBe(403);
    }
  });

  test("the dashboard's own export still works in the browser (compose through the form: e2e/compose.spec.ts)", async ({ page }) => {
    const { accountId } = loadState();
    const user = await newUser("admin");
    await signInBrowser(page, user.email, user.password);
    await page.goto(`/a/${accountId}/events`);
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: /Export CSV/i }).click();
    expect((await download).suggestedFilename()).toMatch(/\.csv$/);
  });
});

async function signInBrowser(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

test.describe("ending sessions", () => {
  test.setTimeout(120_000);

  test("mailroom users set-password ends the old session: the export answers 401, a page sends to sign-in", async () => {
    const { url, accountId } = loadState();
    const user = await newUser("admin");
    const cookie = await signInHttp(url, user.email, user.password);
    const other = await signInHttp(url, user.email, user.password); // a second browser
    expect(await exportStatus(url, accountId, cookie)).toBe(200);
    await cli(["users", "set-password", user.email, "--password", "a-brand-new-password"]);
    expect(await exportStatus(url, accountId, cookie)).toBe(401);
    expect(await exportStatus(url, accountId, other)).toBe(401);
    const page = await fetch(`${url}/a/${accountId}/events`, { headers: { Cookie: cookie }, redirect: "manual" });
    expect(page.status).toBeGreaterThanOrEqual(300);
    expect(page.status).toBeLessThan(400);
    expect(page.headers.get("location")).toMatch(/\/login/);
    // The new password signs in again.
    expect(await exportStatus(url, accountId, await signInHttp(url, user.email, "a-brand-new-password"))).toBe(200);
  });

  test("a role change, a revoked membership, a removal and sign-out-everywhere (CLI) each end the sessions", async () => {
    const { url, accountId } = loadState();
    // Role change: the role in every account.
    const a = await newUser("admin");
    const aCookie = await signInHttp(url, a.email, a.password);
    expect(await exportStatus(url, accountId, aCookie)).toBe(200);
    await cli(["users", "set-role", a.email, "support"]);
    expect(await exportStatus(url, accountId, aCookie)).toBe(401);

    // Revoked membership of another account: the session ends everywhere, Demo too.
    const b = await newUser("support");
    const other = await createAccount(database, { name: `Other ${Date.now()}`, plan: "starter" });
    await grantMembership(database, b.email, other.accountId, "support");
    const bCookie = await signInHttp(url, b.email, b.password);
    expect(await exportStatus(url, accountId, bCookie)).toBe(200);
    await cli(["users", "revoke", "--email", b.email, "--account", other.accountId]);
    expect(await exportStatus(url, accountId, bCookie)).toBe(401);

    // Removal.
    const c = await newUser("support");
    const cCookie = await signInHttp(url, c.email, c.password);
    expect(await exportStatus(url, accountId, cCookie)).toBe(200);
    await cli(["users", "remove", c.email]);
    expect(await exportStatus(url, accountId, cCookie)).toBe(401);

    // Sign out everywhere, nothing else changed.
    const d = await newUser("marketing");
    const dCookie = await signInHttp(url, d.email, d.password);
    expect(await exportStatus(url, accountId, dCookie)).toBe(200);
    await cli(["users", "sign-out-everywhere", "--email", d.email]);
    expect(await exportStatus(url, accountId, dCookie)).toBe(401);
    expect(await exportStatus(url, accountId, await signInHttp(url, d.email, d.password))).toBe(200); // signing in again works
  });

  test("sign out everywhere in the dashboard: the user's own, and an owner ending another user's", async ({ page, browser }) => {
    const { url, accountId } = loadState();
    const user = await newUser("support");
    const elsewhere = await signInHttp(url, user.email, user.password);
    await signInBrowser(page, user.email, user.password);
    await page.goto("/account/password");
    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await expect(page).toHaveURL(/\/login/);
    expect(await exportStatus(url, accountId, elsewhere)).toBe(401);

    const victim = await newUser("support");
    const victimCookie = await signInHttp(url, victim.email, victim.password);
    expect(await exportStatus(url, accountId, victimCookie)).toBe(200);
    const ownerContext = await browser.newContext();
    const owner = await ownerContext.newPage();
    const ownerUser = await newUser("admin", { owner: true }); // not the first-start admin, whose password another spec changes
    await signInBrowser(owner, ownerUser.email, ownerUser.password);
    await owner.goto("/accounts");
    await owner.getByLabel("Staff user's email").fill(victim.email);
    await owner.getByRole("button", { name: "Sign out everywhere" }).click();
    await expect(owner.getByText(`Every session of ${victim.email} has ended.`)).toBeVisible();
    expect(await exportStatus(url, accountId, victimCookie)).toBe(401);
    // The owner's own session goes on.
    await owner.goto("/accounts");
    await expect(owner).toHaveURL(/\/accounts/);
    await ownerContext.close();
  });

  test("changing one's own password keeps this browser signed in and ends the others", async ({ page }) => {
    const { url, accountId } = loadState();
    const user = await newUser("support");
    const elsewhere = await signInHttp(url, user.email, user.password);
    await signInBrowser(page, user.email, user.password);
    await page.goto("/account/password");
    await page.getByLabel("Current password").fill(user.password);
    await page.getByLabel("New password", { exact: true }).fill("my-own-new-password");
    await page.getByLabel("New password again").fill("my-own-new-password");
    await page.getByRole("button", { name: /Change password/i }).click();
    await expect(page).not.toHaveURL(/\/account\/password|\/login/);
    expect(await exportStatus(url, accountId, elsewhere)).toBe(401);
    const res = await page.request.get(exportUrl(url, accountId));
    expect(res.status()).toBe(200);
  });
});

test.describe("the session secret is not in the database", () => {
  test.setTimeout(300_000);
  let app: StartedApp | undefined;
  let own: Database | undefined;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-e2e-secret-"));
  test.afterAll(async () => {
    await own?.close();
    app?.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 3000));
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The app on its own data directory, as `npm start` runs it: neither AUTH_SECRET nor DATABASE_URL inherited. */
  async function startWithout(env: Record<string, string>): Promise<StartedApp> {
    const saved = { AUTH_SECRET: process.env.AUTH_SECRET, DATABASE_URL: process.env.DATABASE_URL };
    delete process.env.AUTH_SECRET;
    delete process.env.DATABASE_URL;
    try {
      return await startApp(env);
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
    }
  }

  async function forge(secret: string, owner: { id: string; email: string; session_version: number }): Promise<string> {
    const token = await encode({
      token: { email: owner.email, name: "Admin", sub: randomBytes(8).toString("hex"), role: "admin", provider: "credentials", mustChangePassword: false, uid: owner.id, sv: owner.session_version },
      secret,
      salt: SESSION_COOKIE,
    });
    return `${SESSION_COOKIE}=${token}`;
  }

  test("without AUTH_SECRET: a 0600 file in the data directory; a cookie forged with anything in the database is refused", async () => {
    const env: Record<string, string> = {
      PORT: "0",
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_EMBEDDED_PG_PORT: "0",
      MAILROOM_INBOUND_PORT: "0",
      MAILROOM_SUBMISSION_PORT: "0",
      MAILROOM_SUBMISSION_TLS_PORT: "0",
      MAILROOM_WORKERS: "inline",
      LOG_LEVEL: "warn",
    };
    app = await startWithout(env);
    const file = path.join(dataDir, "auth-secret");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const secret = readFileSync(file, "utf8").trim();
    expect(secret.length).toBeGreaterThanOrEqual(32);

    own = openDatabase((await startEmbeddedPostgres({ dataDir, port: 0 })).url, { max: 2 });
    const { rows: admin } = await own.pool.query<{ id: string; email: string; session_version: number }>("SELECT id, email, session_version FROM staff_users WHERE is_owner LIMIT 1");
    const owner = admin[0]!;
    // The control: a cookie sealed with the real secret opens the owner's Accounts page.
    const real = await fetch(`${app.url}/accounts`, { headers: { Cookie: await forge(secret, owner) }, redirect: "manual" });
    expect(real.status).toBe(200);

    // An old installation's row, as a backup of one would hold it: moved out on the next start, useless afterwards.
    const stolen = randomBytes(32).toString("base64url");
    await own.pool.query("INSERT INTO instance_settings (key, value) VALUES ('dashboard.auth_secret', $1)", [stolen]);
    const { rows: settings } = await own.pool.query<{ key: string; value: string }>("SELECT key, value FROM instance_settings");
    expect(settings.some((r) => r.value === secret)).toBe(false);
    for (const { key, value } of settings) {
      const res = await fetch(`${app.url}/accounts`, { headers: { Cookie: await forge(value, owner) }, redirect: "manual" });
      expect(res.status, `a cookie forged with instance_settings.${key}`).not.toBe(200);
      expect(res.headers.get("location") ?? "", key).toMatch(/\/login/);
    }

    // An old installation (its secret in the table, no file) starting the new code: the secret moves to the file, once.
    await own.close();
    own = undefined;
    const exited = new Promise<void>((resolve) => app!.child.once("exit", () => resolve()));
    app.child.kill("SIGTERM");
    await exited;
    rmSync(file);
    app = await startWithout(env);
    expect(readFileSync(file, "utf8").trim()).toBe(stolen);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    own = openDatabase((await startEmbeddedPostgres({ dataDir, port: 0 })).url, { max: 2 });
    const after = await own.pool.query("SELECT value FROM instance_settings WHERE key = 'dashboard.auth_secret' OR value = $1", [stolen]);
    expect(after.rowCount).toBe(0);
    // Its sessions go on (the secret is the same), the database no longer holds it.
    const moved = await fetch(`${app.url}/accounts`, { headers: { Cookie: await forge(stolen, owner) }, redirect: "manual" });
    expect(moved.status).toBe(200);
  });
});
