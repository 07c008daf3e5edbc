import { Auth } from "@auth/core";
import { getRequestListener } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAuthConfig } from "../../lib/auth/auth-config";
import { SIGN_IN_LIMITS } from "../../lib/domain/staff/sign-in-throttle";
import { addStaffUser } from "../../lib/domain/staff/staff-users";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The sign-in throttle's client address behind a proxy (MAILROOM_TRUST_PROXY=1,
 * docs/adr/0705): real HTTP through server.ts's request handling to Auth.js's
 * credentials callback (Auth.js mounted alone where Next.js would be), real
 * PostgreSQL. Rotating the entries a client writes into X-Forwarded-For must
 * not rotate the address the per-address limit counts.
 */
describe("sign-in throttle: the client address behind a trusted proxy", () => {
  let app: TestApp;
  // The address our (simulated) proxy appends: the client's real one. Private, as inside an office network.
  const PROXIED_CLIENT = "10.9.8.7";

  beforeAll(async () => {
    const handler = getRequestListener(async (request) => Auth(request, await buildAuthConfig()));
    app = await startTestApp({ MAILROOM_TRUST_PROXY: "1", AUTH_SECRET: "a-secret-of-enough-length-for-tests" }, { dashboardHandler: handler });
    await addStaffUser(app.ctx.database, { email: "real@example.com", password: "the-real-password-1", role: "support" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  /** One sign-in POST as a script would send it (CSRF token and cookie first); the redirect target. */
  async function signIn(email: string, password: string, forwardedFor?: string): Promise<string> {
    const headers: Record<string, string> = forwardedFor === undefined ? {} : { "X-Forwarded-For": forwardedFor };
    const csrf = await app.fetch("/api/auth/csrf", { headers });
    expect(csrf.status).toBe(200);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const cookie = csrf.headers.getSetCookie().map((c) => c.split(";", 1)[0]).join("; ");
    const res = await app.fetch("/api/auth/callback/credentials", {
      method: "POST",
      redirect: "manual",
      headers: { ...headers, cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email, password, csrfToken, callbackUrl: "/events" }).toString(),
    });
    expect(res.status).toBe(302);
    return res.headers.get("location") ?? "";
  }

  const failuresFrom = async (address: string) =>
    (await app.ctx.database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM sign_in_failures WHERE address = $1", [address])).rows[0]!.n;

  it("counts the address the proxy appended, however the client rotates its own entries, and refuses past the per-address limit", async () => {
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) {
      // Each attempt: a new email (the per-email limit never applies) and a new client-written entry.
      const location = await signIn(`spray-${i}@example.com`, "guess", `10.${i % 250}.${i}.1, 192.168.${i}.9, ${PROXIED_CLIENT}`);
      expect(location).toMatch(/\/login\?error=CredentialsSignin&code=credentials$/);
    }
    expect(await failuresFrom(PROXIED_CLIENT)).toBe(SIGN_IN_LIMITS.perAddress);
    // The next attempt from behind the proxy is refused before the password is checked, the right one included.
    expect(await signIn("real@example.com", "the-real-password-1", `203.0.113.99, ${PROXIED_CLIENT}`)).toMatch(/code=throttled-\d+$/);
    // A header line of its own before the proxy's changes nothing: the lines form one list.
    expect(await signIn("real@example.com", "the-real-password-1", `6.6.6.6,${PROXIED_CLIENT}`)).toMatch(/code=throttled-\d+$/);
  });

  it("ignores a client's own x-mailroom-client-address header", async () => {
    const csrf = await app.fetch("/api/auth/csrf");
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const cookie = csrf.headers.getSetCookie().map((c) => c.split(";", 1)[0]).join("; ");
    const res = await app.fetch("/api/auth/callback/credentials", {
      method: "POST",
      redirect: "manual",
      headers: { "x-mailroom-client-address": "198.51.100.77", "X-Forwarded-For": `1.1.1.1, ${PROXIED_CLIENT}`, cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "real@example.com", password: "the-real-password-1", csrfToken, callbackUrl: "/events" }).toString(),
    });
    expect(res.headers.get("location")).toMatch(/code=throttled-\d+$/);
    expect(await failuresFrom("198.51.100.77")).toBe(0);
  });

  it("uses the socket address when the request did not pass through the proxy (no X-Forwarded-For)", async () => {
    // From 127.0.0.1 directly: a different address, not throttled; the right password signs in.
    expect(await signIn("real@example.com", "the-real-password-1")).toMatch(/\/events$/);
    expect(await failuresFrom(PROXIED_CLIENT)).toBe(SIGN_IN_LIMITS.perAddress);
  });
});
