import { Auth } from "@auth/core";
import { getRequestListener } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAuthConfig } from "../../lib/auth/auth-config";
import { addStaffUser, removeStaffUser } from "../../lib/domain/staff/staff-users";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * A dashboard session is bound to its staff row's id (docs/adr/0509): real
 * HTTP to Auth.js's credentials callback and session endpoint (Auth.js
 * mounted alone where Next.js would be), real PostgreSQL. A user removed and
 * added again with the same email is another row, at version 0 again: the
 * old cookie must not sign its holder in as the new user.
 */
describe("dashboard sessions: bound to the staff row", () => {
  let app: TestApp;

  beforeAll(async () => {
    const handler = getRequestListener(async (request) => Auth(request, await buildAuthConfig()));
    app = await startTestApp({ AUTH_SECRET: "a-secret-of-enough-length-for-tests" }, { dashboardHandler: handler });
  });
  afterAll(async () => {
    await app?.stop();
  });

  /** A password sign-in as a browser makes it; the session cookie. */
  async function signIn(email: string, password: string): Promise<string> {
    const csrf = await app.fetch("/api/auth/csrf");
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const cookie = csrf.headers.getSetCookie().map((c) => c.split(";", 1)[0]).join("; ");
    const res = await app.fetch("/api/auth/callback/credentials", {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email, password, csrfToken, callbackUrl: "/events" }).toString(),
    });
    expect(res.headers.get("location")).toMatch(/\/events$/);
    const session = res.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="));
    expect(session).toBeDefined();
    return session!.split(";", 1)[0]!;
  }

  async function sessionOf(cookie: string): Promise<{ user?: { email?: string; role?: string } } | null> {
    const res = await app.fetch("/api/auth/session", { headers: { cookie } });
    expect(res.status).toBe(200);
    return (await res.json()) as { user?: { email?: string; role?: string } } | null;
  }

  it("a removed user's session stays ended when a user with the same email is added again", async () => {
    await addStaffUser(app.ctx.database, { email: "leaver@example.com", password: "the-first-password-1", role: "admin" });
    // Another admin, so that the first can be removed (the last admin never is).
    await addStaffUser(app.ctx.database, { email: "keeper@example.com", password: "the-keeper-password-1", role: "admin" });
    const old = await signIn("leaver@example.com", "the-first-password-1");
    expect((await sessionOf(old))?.user).toMatchObject({ email: "leaver@example.com", role: "admin" });

    await removeStaffUser(app.ctx.database, "leaver@example.com");
    const again = await addStaffUser(app.ctx.database, { email: "leaver@example.com", password: "another-password-2", role: "support" });
    expect(again.sessionVersion).toBe(0);

    // The old cookie is not the new user's, whose own sign-in holds.
    expect(await sessionOf(old)).toBeNull();
    const fresh = await signIn("leaver@example.com", "another-password-2");
    expect((await sessionOf(fresh))?.user).toMatchObject({ email: "leaver@example.com", role: "support" });
    expect(await sessionOf(old)).toBeNull();
  });
});
