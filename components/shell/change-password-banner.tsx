"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { Alert } from "@/components/ui/alert";

/**
 * Shown on every dashboard page while the signed-in user still has the
 * password generated for them (ADR 0505), except on the page that changes
 * it. A client component: the layout is not rendered again on client-side
 * navigation, the current path is.
 */
export function ChangePasswordBanner() {
  const pathname = usePathname();
  if (pathname.startsWith("/account/password")) return null;
  return (
    <div className="mb-4" data-testid="change-password-banner">
      <Alert tone="warning" title="You are still using the password that was generated for you">
        <Link href={`/account/password?next=${encodeURIComponent(pathname)}`} className="font-medium underline">
          Choose your own password
        </Link>
      </Alert>
    </div>
  );
}
