import "server-only";
import NextAuth, { type NextAuthConfig } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { getOrCreateAuthSecret } from "../domain/dashboard-auth-secret";
import { getStaffUser, verifyStaffPassword } from "../domain/staff-users";
import { getServerContext } from "../runtime";
import { isRole, type Role } from "./roles";

/**
 * Auth.js v5 for the staff dashboard: credentials over staff users, an
 * optional OIDC provider from configuration, JWT sessions carrying the role.
 * The configuration is built lazily per request from the running context
 * (server.ts puts it on globalThis), because the secret may live in the
 * database (lib/domain/dashboard-auth-secret.ts).
 */

export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;

let secretPromise: Promise<string> | undefined;
function resolveSecret(): Promise<string> {
  const ctx = getServerContext();
  if (ctx.config.auth.secret) return Promise.resolve(ctx.config.auth.secret);
  secretPromise ??= getOrCreateAuthSecret(ctx.database.db).catch((err: unknown) => {
    secretPromise = undefined;
    throw err;
  });
  return secretPromise;
}

async function buildAuthConfig(): Promise<NextAuthConfig> {
  const ctx = getServerContext();
  const { oidc } = ctx.config.auth;
  const providers: NextAuthConfig["providers"] = [
    Credentials({
      id: "credentials",
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials) {
        const email = typeof credentials?.email === "string" ? credentials.email : "";
        const password = typeof credentials?.password === "string" ? credentials.password : "";
        if (!email || !password) return null;
        const user = await verifyStaffPassword(ctx.database.db, email, password);
        if (!user) return null;
        return { id: user.id, email: user.email, name: user.name || user.email, role: user.role };
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
    secret: await resolveSecret(),
    trustHost: true,
    basePath: "/api/auth",
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: "/login" },
    providers,
    callbacks: {
      async jwt({ token, user, account }) {
        if (user && account) {
          // Sign-in: credentials carry the staff role; an OIDC identity takes
          // the role of the staff user with the same email, else the configured one.
          const fromUser = (user as { role?: unknown }).role;
          token.role = isRole(fromUser) ? fromUser : oidc?.role;
          token.provider = account.provider;
          return token;
        }
        // Every later request: the staff user's current role, so that a role
        // change or a removal takes effect at once (one indexed read).
        if (typeof token.email === "string") {
          const staff = await getStaffUser(ctx.database.db, token.email);
          if (staff) token.role = staff.role;
          else if (token.provider !== "oidc") token.role = undefined;
        }
        return token;
      },
      session({ session, token }) {
        const role = isRole(token.role) ? token.role : undefined;
        return { ...session, user: { ...session.user, role } } as typeof session;
      },
    },
  };
}

export const { handlers, auth, signIn, signOut } = NextAuth(() => buildAuthConfig());

export interface StaffSession {
  email: string;
  name: string;
  role: Role;
}

/** The signed-in staff member, or undefined (no session, or no valid role). */
export async function getStaffSession(): Promise<StaffSession | undefined> {
  const session = await auth();
  const user = session?.user as { email?: string | null; name?: string | null; role?: unknown } | undefined;
  if (!user?.email || !isRole(user.role)) return undefined;
  return { email: user.email, name: user.name ?? user.email, role: user.role };
}
