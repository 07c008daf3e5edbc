import { Auth, type AuthConfig } from "@auth/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAuthConfig } from "../../lib/auth/auth-config";
import { buildConfig } from "../../lib/config";
import type { AppContext } from "../../lib/context";
import { createAccount } from "../../lib/domain/accounts/accounts";
import { accountsVisibleTo, addStaffUser, setStaffOwner } from "../../lib/domain/staff/staff-users";
import { setServerContext } from "../../lib/runtime";
import { openDatabase, type Database } from "../../lib/storage/database";
import { startTestOidcProvider, type TestOidcProvider } from "../support/oidc-provider";
import { createTestDatabase } from "../support/test-database";

/**
 * The OIDC sign-in through the real Auth.js code path (ADR 0511): the
 * dashboard's Auth.js configuration (buildAuthConfig) handles sign-in and
 * callback requests, against a small OpenID provider on loopback HTTP that
 * signs ID tokens with whatever claims the test chooses.
 */

const APP = "http://mailroom.test";
const CLIENT_ID = "mailroom-dashboard";

class CookieJar {
  private cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (value === "" || /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  has(prefix: string): boolean {
    return [...this.cookies.keys()].some((k) => k.startsWith(prefix));
  }
}

describe("OIDC sign-in through Auth.js", () => {
  let database: Database;
  let idp: TestOidcProvider;
  let defaultAccount: string;

  beforeAll(async () => {
    database = openDatabase(await createTestDatabase(), { max: 4 });
    idp = await startTestOidcProvider(CLIENT_ID);
    defaultAccount = (await createAccount(database, { name: "Demo", plan: "trial", isDefault: true })).accountId;
    await addStaffUser(database, { email: "owner@example.com", role: "admin", password: "owner-password-1", accountId: defaultAccount });
    await setStaffOwner(database, "owner@example.com", true);
  });
  afterAll(async () => {
    await idp?.close();
    await database?.close();
  });

  function useConfig(env: Record<string, string> = {}): void {
    const config = buildConfig({
      AUTH_SECRET: "an-oidc-test-secret-of-enough-length",
      AUTH_OIDC_ISSUER: idp.issuer,
      AUTH_OIDC_CLIENT_ID: CLIENT_ID,
      AUTH_OIDC_CLIENT_SECRET: "client-secret",
      ...env,
    });
    setServerContext({ config, database } as unknown as AppContext);
  }

  /** Sign-in button → the provider → the callback; returns where Auth.js sends the browser and the cookies. */
  async function signInWithOidc(claims: Record<string, unknown>): Promise<{ location: string; jar: CookieJar }> {
    idp.identity = claims;
    const config = (await buildAuthConfig()) as AuthConfig;
    const jar = new CookieJar();
    const csrfRes = await Auth(new Request(`${APP}/api/auth/csrf`), config);
    jar.take(csrfRes);
    const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
    const start = await Auth(
      new Request(`${APP}/api/auth/signin/oidc`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
        body: new URLSearchParams({ csrfToken, callbackUrl: `${APP}/` }),
      }),
      config,
    );
    jar.take(start);
    const authorize = start.headers.get("location") ?? "";
    expect(authorize.startsWith(`${idp.issuer}/authorize?`), authorize).toBe(true);
    const atIdp = await fetch(authorize, { redirect: "manual" });
    const callback = atIdp.headers.get("location") ?? "";
    expect(callback.startsWith(`${APP}/api/auth/callback/oidc?`), callback).toBe(true);
    const done = await Auth(new Request(callback, { headers: { cookie: jar.header() } }), config);
    jar.take(done);
    return { location: done.headers.get("location") ?? "", jar };
  }

  async function sessionOf(jar: CookieJar): Promise<{ user?: { email?: string; role?: string } } | null> {
    const config = (await buildAuthConfig()) as AuthConfig;
    const res = await Auth(new Request(`${APP}/api/auth/session`, { headers: { cookie: jar.header() } }), config);
    return (await res.json()) as { user?: { email?: string; role?: string } } | null;
  }

  const denied = (location: string) => expect(location).toMatch(/\/login\?error=AccessDenied/);
  const staffCount = async (email: string) => (await database.pool.query("SELECT count(*)::int AS n FROM staff_users WHERE email = $1", [email])).rows[0].n as number;

  it("refuses an unverified email equal to the owner's, and a verified flag that is only a string", async () => {
    useConfig({ AUTH_OIDC_ALLOWED_DOMAINS: "example.com" });
    for (const email_verified of [false, undefined, "true"]) {
      const { location, jar } = await signInWithOidc({ email: "owner@example.com", email_verified, name: "Mallory" });
      denied(location);
      expect(jar.has("authjs.session-token")).toBe(false);
    }
    expect(idp.authorizations.at(-1)?.get("code_challenge_method")).toBe("S256");
  });

  it("signs the owner in by a verified email, as the owner (the role re-read from the staff user)", async () => {
    useConfig();
    const { location, jar } = await signInWithOidc({ email: "Owner@Example.com", email_verified: true });
    expect(location).toBe(`${APP}/`);
    expect(jar.has("authjs.session-token")).toBe(true);
    const session = await sessionOf(jar);
    expect(session?.user).toMatchObject({ role: "admin" });
    const { rows } = await database.pool.query("SELECT last_login_at FROM staff_users WHERE email = 'owner@example.com'");
    expect(rows[0].last_login_at).toBeInstanceOf(Date);
  });

  it("without an allow-list, refuses a verified identity that is not a staff user, and creates nothing", async () => {
    useConfig();
    const { location, jar } = await signInWithOidc({ email: "eve@corp.test", email_verified: true });
    denied(location);
    expect(jar.has("authjs.session-token")).toBe(false);
    expect(await staffCount("eve@corp.test")).toBe(0);
  });

  it("with an allow-list, admits a listed domain or address as a staff user with no membership; others are refused", async () => {
    useConfig({ AUTH_OIDC_ALLOWED_DOMAINS: "corp.test", AUTH_OIDC_ALLOWED_EMAILS: "contractor@elsewhere.test", AUTH_OIDC_ROLE: "marketing" });
    const admitted = await signInWithOidc({ email: "new@corp.test", email_verified: true, name: "New Person" });
    expect(admitted.location).toBe(`${APP}/`);
    const visible = await accountsVisibleTo(database, "new@corp.test");
    expect(visible?.user).toMatchObject({ email: "new@corp.test", name: "New Person", role: "marketing", isOwner: false });
    // No account at all, the default one included: an invitation or an owner grants one.
    expect(visible?.accounts).toEqual([]);

    const listed = await signInWithOidc({ email: "contractor@elsewhere.test", email_verified: true });
    expect(listed.location).toBe(`${APP}/`);
    expect((await accountsVisibleTo(database, "contractor@elsewhere.test"))?.accounts).toEqual([]);

    for (const email of ["x@sub.corp.test", "x@evilcorp.test", "other@elsewhere.test"]) {
      denied((await signInWithOidc({ email, email_verified: true })).location);
      expect(await staffCount(email)).toBe(0);
    }
  });

  it("a removed staff user's OIDC session ends at its next request", async () => {
    useConfig({ AUTH_OIDC_ALLOWED_DOMAINS: "corp.test" });
    const { jar } = await signInWithOidc({ email: "leaver@corp.test", email_verified: true });
    expect((await sessionOf(jar))?.user?.role).toBe("support");
    await database.pool.query("DELETE FROM staff_users WHERE email = 'leaver@corp.test'");
    expect((await sessionOf(jar))?.user?.role).toBeUndefined();
  });
});
