import type { Metadata } from "next";
import Link from "next/link";
import { Button } from "@/components/ui/button";
import { Card, CardBody } from "@/components/ui/card";
import { getStaffSession } from "@/lib/auth/auth";
import { invitationPage } from "@/lib/dashboard/invitations";
import { MIN_PASSWORD_LENGTH } from "@/lib/dashboard/sign-in";
import { signOutToInvitationAction } from "./actions";
import { AcceptForm, NewUserForm } from "./_components/invite-forms";
import { AuthPage } from "@/components/auth-page";

export const metadata: Metadata = { title: "Invitation", referrer: "no-referrer" };
export const dynamic = "force-dynamic";

/**
 * `/invite/<token>`: the link of an invitation email (ADR 0512). Whoever
 * holds it sees which account invites which address; they accept signed in
 * as that address, or choose a password when it has no staff user yet.
 */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const view = await invitationPage(token);
  const session = view.state === "open" ? await getStaffSession() : undefined;
  const here = `/invite/${encodeURIComponent(token)}`;
  return (
    <AuthPage title="Invitation">
      <Card>
        <CardBody className="flex flex-col gap-4 p-6" data-testid="invitation">
          {view.state === "invalid" ? (
            <>
              <p role="alert" className="text-sm">
                This invitation is not valid: it has expired, was used already or was revoked. Ask the person who invited you for a new one.
              </p>
              <Link href="/login" className="text-sm font-medium text-brand-700 underline dark:text-brand-100">
                Sign in
              </Link>
            </>
          ) : (
            <>
              <p className="text-sm">
                <strong className="break-all">{view.email}</strong> is invited to join <strong>{view.accountName}</strong> as <strong>{view.role}</strong>.
              </p>
              {session && session.email.toLowerCase() === view.email ? (
                <AcceptForm token={token} accountName={view.accountName} />
              ) : session ? (
                <form action={signOutToInvitationAction} className="flex flex-col gap-3">
                  <p className="text-sm">
                    You are signed in as <strong className="break-all">{session.email}</strong>. Sign out, then sign in as {view.email} to accept.
                  </p>
                  <input type="hidden" name="token" value={token} />
                  <Button type="submit" variant="secondary">
                    Sign out
                  </Button>
                </form>
              ) : view.hasUser ? (
                <Link href={`/login?callbackUrl=${encodeURIComponent(here)}`} className="text-sm font-medium text-brand-700 underline dark:text-brand-100">
                  Sign in as {view.email} to accept
                </Link>
              ) : (
                <NewUserForm token={token} minLength={MIN_PASSWORD_LENGTH} />
              )}
            </>
          )}
        </CardBody>
      </Card>
    </AuthPage>
  );
}
