import { describe, expect, it } from "vitest";
import { buildConfig } from "../config";
import type { AppContext } from "../context";
import { setServerContext } from "../runtime";
import { buildAuthConfig, SignInThrottled, throttledSeconds } from "./auth-config";

function contextWith(env: Record<string, string>): AppContext {
  // Only the configuration is read on these paths (an explicit AUTH_SECRET needs no database),
  // and at sign-in the staff row's session version (ADR 0507): here, no staff user.
  const noRows = { select: () => ({ from: () => ({ where: async () => [] }) }) };
  return { config: buildConfig(env), database: { db: noRows } } as unknown as AppContext;
}

describe("Auth.js configuration", () => {
  it("uses AUTH_SECRET when set, JWT sessions and the credentials provider only", async () => {
    setServerContext(contextWith({ AUTH_SECRET: "a-secret-of-enough-length" }));
    const config = await buildAuthConfig();
    expect(config.secret).toBe("a-secret-of-enough-length");
    expect(config.session?.strategy).toBe("jwt");
    expect(config.providers.map((p) => (typeof p === "function" ? "fn" : p.id))).toEqual(["credentials"]);
  });

  it("adds the OIDC provider from configuration; an OIDC sign-in gets the configured role", async () => {
    setServerContext(
      contextWith({
        AUTH_SECRET: "a-secret-of-enough-length",
        AUTH_OIDC_ISSUER: "https://idp.example.com",
        AUTH_OIDC_CLIENT_ID: "mailroom",
        AUTH_OIDC_CLIENT_SECRET: "s3cret",
        AUTH_OIDC_ROLE: "marketing",
      }),
    );
    const config = await buildAuthConfig();
    const oidc = config.providers.find((p) => typeof p !== "function" && p.id === "oidc");
    expect(oidc).toMatchObject({ type: "oidc", issuer: "https://idp.example.com", clientId: "mailroom" });
    const token = await config.callbacks!.jwt!({
      token: { email: "eve@example.com" },
      user: { email: "eve@example.com" },
      account: { provider: "oidc", type: "oidc", providerAccountId: "eve" },
    } as Parameters<NonNullable<NonNullable<typeof config.callbacks>["jwt"]>>[0]);
    expect(token).toMatchObject({ role: "marketing", provider: "oidc" });
    // A credentials sign-in carries the staff user's own role.
    const staffToken = await config.callbacks!.jwt!({
      token: { email: "sam@example.com" },
      user: { email: "sam@example.com", role: "support" } as never,
      account: { provider: "credentials", type: "credentials", providerAccountId: "sam" },
    } as Parameters<NonNullable<NonNullable<typeof config.callbacks>["jwt"]>>[0]);
    expect(staffToken).toMatchObject({ role: "support" });
  });

  it("parses the OIDC allow-lists: trimmed, lowercased, a leading @ dropped; a bad entry is refused by name", () => {
    const base = { AUTH_OIDC_ISSUER: "https://idp.example.com", AUTH_OIDC_CLIENT_ID: "mailroom" };
    const oidc = buildConfig({ ...base, AUTH_OIDC_ALLOWED_DOMAINS: " @Corp.Example , ,xn--bcher-kva.example", AUTH_OIDC_ALLOWED_EMAILS: "Ann@Example.org" }).auth.oidc;
    expect(oidc).toMatchObject({ allowedDomains: ["corp.example", "xn--bcher-kva.example"], allowedEmails: ["ann@example.org"] });
    expect(buildConfig(base).auth.oidc).toMatchObject({ allowedDomains: [], allowedEmails: [] });
    for (const bad of ["corp example", "*.corp.example", "a@corp.example", "-corp.example", "corp..example"]) {
      expect(() => buildConfig({ ...base, AUTH_OIDC_ALLOWED_DOMAINS: bad }), bad).toThrow(/AUTH_OIDC_ALLOWED_DOMAINS/);
    }
    expect(() => buildConfig({ ...base, AUTH_OIDC_ALLOWED_EMAILS: "not-an-address" })).toThrow(/AUTH_OIDC_ALLOWED_EMAILS/);
  });

  it("carries a throttled sign-in's wait in the CredentialsSignin code, and reads it back strictly", () => {
    const err = new SignInThrottled(754);
    expect(err.code).toBe("throttled-754");
    expect(err.type).toBe("CredentialsSignin");
    expect(throttledSeconds(err.code)).toBe(754);
    for (const bad of ["credentials", "throttled-", "throttled-12x", "throttled-1234567", undefined, ["throttled-5"]]) expect(throttledSeconds(bad)).toBeUndefined();
  });

  it("binds a session to the staff row's id: another row with the same email, or a session without an id, ends it (ADR 0509)", async () => {
    const ann = { id: "00000000-0000-4000-8000-0000000000a1", email: "ann@example.com", name: "Ann", role: "admin", createdAt: new Date(), lastLoginAt: null, mustChangePassword: false, isOwner: false, sessionVersion: 0 };
    let rows: unknown[] = [ann];
    let reads = 0;
    const db = {
      select: () => ({
        from: () => ({
          where: async () => {
            reads++;
            return rows;
          },
        }),
      }),
    };
    setServerContext({ config: buildConfig({ AUTH_SECRET: "a-secret-of-enough-length" }), database: { db } } as unknown as AppContext);
    const config = await buildAuthConfig();
    type JwtArgs = Parameters<NonNullable<NonNullable<typeof config.callbacks>["jwt"]>>[0];
    const jwt = (args: unknown) => config.callbacks!.jwt!(args as JwtArgs);

    // A password sign-in carries the row it was checked against: its id and version.
    const signedIn = await jwt({
      token: { email: "ann@example.com" },
      user: { id: ann.id, email: "ann@example.com", role: "admin", sessionVersion: 0 },
      account: { provider: "credentials", type: "credentials", providerAccountId: ann.id },
    });
    expect(signedIn).toMatchObject({ uid: ann.id, sv: 0 });
    expect(await jwt({ token: signedIn })).toMatchObject({ role: "admin", uid: ann.id });

    // Ann removed, a new Ann added (a new row, version 0 again): her old session is not the new user's.
    rows = [{ ...ann, id: "00000000-0000-4000-8000-0000000000b2", role: "support" }];
    expect(await jwt({ token: signedIn })).toBeNull();
    rows = [];
    expect(await jwt({ token: signedIn })).toBeNull();

    // A session from before ids (email and version only) is signed out without a read.
    rows = [ann];
    const before = reads;
    expect(await jwt({ token: { email: "ann@example.com", role: "admin", sv: 0 } })).toBeNull();
    expect(await jwt({ token: { email: "ann@example.com", role: "admin", sv: 0, uid: "" } })).toBeNull();
    expect(reads).toBe(before);
  });

  it("a session the database cannot check (an outage) grants nothing now but is not ended; any other error still throws", async () => {
    let answer: () => Promise<unknown[]> = async () => {
      throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    };
    const db = { select: () => ({ from: () => ({ where: () => answer() }) }) };
    setServerContext({ config: buildConfig({ AUTH_SECRET: "a-secret-of-enough-length" }), database: { db } } as unknown as AppContext);
    const config = await buildAuthConfig();
    type JwtArgs = Parameters<NonNullable<NonNullable<typeof config.callbacks>["jwt"]>>[0];
    type SessionArgs = Parameters<NonNullable<NonNullable<typeof config.callbacks>["session"]>>[0];
    const signedIn = { email: "ann@example.com", role: "admin", uid: "00000000-0000-4000-8000-0000000000a1", sv: 3 };

    const during = await config.callbacks!.jwt!({ token: signedIn } as unknown as JwtArgs);
    expect(during).toMatchObject({ email: "ann@example.com", sv: 3, unchecked: true });
    expect(during!.role).toBeUndefined();
    const session = await config.callbacks!.session!({ session: { user: { email: "ann@example.com" } }, token: during } as unknown as SessionArgs);
    expect(session.user).toMatchObject({ unchecked: true, role: undefined });

    // Back: the row is read again, and the session holds as before (its version unchanged).
    answer = async () => [{ id: "00000000-0000-4000-8000-0000000000a1", email: "ann@example.com", name: "Ann", role: "admin", createdAt: new Date(), lastLoginAt: null, mustChangePassword: false, isOwner: false, sessionVersion: 3 }];
    const after = await config.callbacks!.jwt!({ token: during } as unknown as JwtArgs);
    expect(after).toMatchObject({ role: "admin", sv: 3 });
    expect(after).not.toHaveProperty("unchecked");

    // A defect is not an outage.
    answer = async () => {
      throw Object.assign(new Error('relation "staff_users" does not exist'), { code: "42P01" });
    };
    await expect(config.callbacks!.jwt!({ token: signedIn } as unknown as JwtArgs)).rejects.toThrow(/does not exist/);
  });
});
