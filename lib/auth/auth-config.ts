import "server-only";
import { CredentialsSignin } from "@auth/core/errors";
import type { NextAuthConfig } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { requestClientIp } from "../domain/shared/client-ip";
import { outageMessage } from "../domain/shared/outage-message";
import { beginSignInAttempt, signInSucceeded } from "../domain/staff/sign-in-throttle";
import { getStaffUserById, verifyStaffPassword } from "../domain/staff/staff-users";
import { getServerContext } from "../runtime";
import { admitOidcIdentity } from "./oidc-sign-in";
import { isRole } from "./roles";
import { sessionBindingAtSignIn, sessionHolds, sessionUserId } from "./session-version";

/**
 * The Auth.js configuration of the staff dashboard (see auth.ts):
 * credentials over staff users, an optional OIDC provider from
 * configuration, JWT sessions carrying the role, re-read on every request.
 * Built per request from the running context, whose secret server.ts
 * resolved at start (lib/domain/staff/dashboard-auth-secret.ts). No `next-auth`
 * runtime import here, so it can be tested outside Next.
 */

export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;

/**
 * A refused sign-in attempt (too many failures). Auth.js puts `code` in the
 * sign-in page's URL (`?error=CredentialsSignin&code=throttled-<seconds>`)
 * and throws the error itself to a server action.
 */
export class SignInThrottled extends CredentialsSignin {
  constructor(readonly retryAfterSeconds: number) {
    super();
    this.code = `throttled-${retryAfterSeconds}`;
  }
}

/** The wait a CredentialsSignin code carries (`throttled-<seconds>`), else undefined. */
export function throttledSeconds(code: unknown): number | undefined {
  if (typeof code !== "string" || !code.startsWith("throttled-")) return undefined;
  const digits = code.slice("throttled-".length);
  if (!/^[0-9]{1,6}$/.test(digits)) return undefined;
  return Number(digits);
}

/** AUTH_SECRET, else the data directory's generated secret: never one kept in the database (ADR 0508). */
function resolveSecret(): string {
  const ctx = getServerContext();
  const secret = ctx.dashboardSecret ?? ctx.config.auth.secret;
  if (!secret) throw new Error("The dashboard's secret is not resolved: the dashboard runs inside server.ts");
  return secret;
}

export async function buildAuthConfig(): Promise<NextAuthConfig> {
  const ctx = getServerContext();
  const { oidc } = ctx.config.auth;
  const providers: NextAuthConfig["providers"] = [
    Credentials({
      id: "credentials",
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials, request) {
        const email = typeof credentials?.email === "string" ? credentials.email : "";
        const password = typeof credentials?.password === "string" ? credentials.password : "";
        if (!email || !password) return null;
        // Throttled before the password is checked, the form and a direct POST to the callback alike (ADR 0504).
        const address = requestClientIp(request?.headers);
        const attempt = await beginSignInAttempt(ctx.database, email, address);
        if (!attempt.allowed) throw new SignInThrottled(attempt.retryAfterSeconds);
        const user = await verifyStaffPassword(ctx.database, email, password);
        if (!user) return null;
        await signInSucceeded(ctx.database, email, address);
        return { id: user.id, email: user.email, name: user.name || user.email, role: user.role, mustChangePassword: user.mustChangePassword, sessionVersion: user.sessionVersion };
      },
    }),
  ];
  if (oidc) {
    providers.push({
      id: "oidc",
      name: "Single sign-on",
      type: "oidc",
      issuer: oidc.issuer,
      clientId: oidc.clientId,
      clientSecret: oidc.clientSecret,
    });
  }
  return {
    secret: resolveSecret(),
    trustHost: true,
    basePath: "/api/auth",
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: "/login", error: "/login" },
    providers,
    callbacks: {
      // OIDC: a verified email of a staff user, or of the allow-list (ADR 0511); anything else is AccessDenied.
      async signIn({ account, profile }) {
        if (account?.provider !== "oidc") return true;
        return oidc ? admitOidcIdentity(ctx.database, profile, oidc) : false;
      },
      async jwt({ token, user, account }) {
        if (user && account) {
          // Sign-in: credentials carry the staff role; an OIDC identity takes
          // the role of the staff user with the same email, else the configured one.
          const fromUser = (user as { role?: unknown }).role;
          token.role = isRole(fromUser) ? fromUser : oidc?.role;
          token.mustChangePassword = (user as { mustChangePassword?: unknown }).mustChangePassword === true;
          token.provider = account.provider;
          const binding = await sessionBindingAtSignIn(ctx.database, user, account.provider);
          token.uid = binding?.uid;
          token.sv = binding?.sv;
          return token;
        }
        // Every later request: the staff row the session began with, by its id (ADR 0509), so that a role
        // change or a removal takes effect at once (one indexed read). A session without an id (from before
        // ids) is ended: an email alone may name a later user.
        const uid = sessionUserId(token);
        if (uid === undefined) return null;
        let staff: Awaited<ReturnType<typeof getStaffUserById>>;
        try {
          staff = await getStaffUserById(ctx.database, uid);
        } catch (err) {
          // The database does not answer: the session cannot be checked, so it grants nothing now, but it
          // is not ended (an outage must not sign everybody out); the next request checks again (ADR 0513).
          if (outageMessage(err) === undefined) throw err;
          return { ...token, role: undefined, unchecked: true };
        }
        delete token.unchecked;
        // Removed (a user added again with the email is another row), or a password, role or membership
        // change, or "sign out everywhere" (ADR 0507): the session ends.
        if (!staff || !sessionHolds(token, staff)) return null;
        token.role = staff.role;
        token.mustChangePassword = staff.mustChangePassword && token.provider !== "oidc";
        return token;
      },
      session({ session, token }) {
        const role = isRole(token.role) ? token.role : undefined;
        const unchecked = token.unchecked === true;
        return { ...session, user: { ...session.user, role, mustChangePassword: token.mustChangePassword === true, unchecked } } as typeof session;
      },
    },
  };
}

