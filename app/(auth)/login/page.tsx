import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { Button } from "@/components/ui/button";
import { Card, CardBody } from "@/components/ui/card";
import { getStaffSession } from "@/lib/auth/auth";
import { homeFor } from "@/lib/auth/roles";
import { throttledSeconds } from "@/lib/auth/auth-config";
import { safeReturnPath } from "@/lib/auth/safe-return";
import { oidcEnabled, throttleMessage } from "@/lib/dashboard/sign-in";
import { LoginForm } from "./_components/login-form";
import { signInWithOidc } from "./actions";
import { AuthPage } from "@/components/auth-page";

export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const callbackUrl = typeof params.callbackUrl === "string" ? safeReturnPath(params.callbackUrl, "") : "";
  const staff = await getStaffSession();
  if (staff) redirect(callbackUrl || homeFor(staff.role));
  const hasOidc = oidcEnabled();
  // A direct POST to /api/auth/callback/credentials that was throttled lands here with code=throttled-<seconds>.
  const wait = params.error === "CredentialsSignin" ? throttledSeconds(params.code) : undefined;
  const refused = params.error === "AccessDenied";
  const oauthError = typeof params.error === "string" && wait === undefined && !refused;
  return (
    <AuthPage title="Sign in to the staff dashboard">
      <Card>
        <CardBody className="flex flex-col gap-4 p-6">
          {wait !== undefined && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              {throttleMessage(wait)}
            </p>
          )}
          {refused && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              Single sign-on did not let you in: your identity provider must confirm your email address, and the address must be a staff user&apos;s
              or one this install admits. Ask an admin.
            </p>
          )}
          {oauthError && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              Sign-in did not complete. Try again.
            </p>
          )}
          <LoginForm callbackUrl={callbackUrl} />
          {hasOidc && (
            <form action={signInWithOidc} className="flex flex-col gap-2 border-t border-slate-200 pt-4 dark:border-slate-800">
              <input type="hidden" name="callbackUrl" value={callbackUrl} />
              <Button type="submit" variant="secondary">
                Sign in with single sign-on
              </Button>
            </form>
          )}
        </CardBody>
      </Card>
      <p className="mt-4 text-center text-xs text-slate-600 dark:text-slate-400">
        No account? An admin adds staff with <code>mailroom users add</code>.
      </p>
    </AuthPage>
  );
}
