import type { Metadata } from "next";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { requireStaff } from "@/lib/auth/require-role";
import { homeFor } from "@/lib/auth/roles";
import { safeReturnPath } from "@/lib/auth/safe-return";
import { signOutEverywhereAction } from "../../actions";
import { PasswordForm } from "./_components/password-form";

export const metadata: Metadata = { title: "Change your password" };

/**
 * Any staff member changes their own password here. Someone signed in with a
 * password generated for them (the admin printed at first start, a CLI user)
 * is sent here after sign-in and sees why; they may go on without changing
 * it, and every page says so until they do (ADR 0505).
 */
export default async function ChangePasswordPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const staff = await requireStaff("/account/password");
  const params = await searchParams;
  const next = safeReturnPath(typeof params.next === "string" ? params.next : undefined, homeFor(staff.role));
  return (
    <div className="mx-auto flex max-w-md flex-col gap-4">
      <h1 className="text-2xl font-bold tracking-tight">Change your password</h1>
      {staff.mustChangePassword && (
        <Alert tone="warning" title="Your password was generated for you">
          It was printed once, when Mailroom first started or when the account was made with the command line, and may still sit in a terminal
          or a log. Choose your own now.
        </Alert>
      )}
      <Card>
        <CardBody className="p-6">
          <PasswordForm next={next} offerSkip={staff.mustChangePassword} email={staff.email} />
        </CardBody>
      </Card>
      <Card>
        <CardHeader
          title="Sign out everywhere"
          description="Ends every session of yours, in every browser, this one too: for a computer you no longer have. A new password does it as well."
        />
        <CardBody>
          <form action={signOutEverywhereAction}>
            <Button type="submit" variant="secondary">
              Sign out everywhere
            </Button>
          </form>
        </CardBody>
      </Card>
    </div>
  );
}
