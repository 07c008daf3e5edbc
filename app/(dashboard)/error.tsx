"use client";

import Link from "next/link";
import { buttonClass } from "@/components/ui/button";

/**
 * A dashboard page that failed while it was being made (its session was
 * fine: an unchecked one goes to /unavailable, docs/adr/0513). The server
 * logged the error with this digest; nothing of it is shown here.
 */
export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <main className="mx-auto flex max-w-lg flex-col items-start gap-4 px-6 py-24">
      <p className="text-sm font-semibold text-red-700 dark:text-red-400">Error</p>
      <h1 className="text-2xl font-bold">This page could not be loaded</h1>
      <p className="text-slate-700 dark:text-slate-300">
        If the database is restarting, trying again in a few seconds is enough. If it keeps failing, the server&apos;s log has the error
        {error.digest ? (
          <>
            {" "}
            under the reference <code data-testid="error-digest">{error.digest}</code>
          </>
        ) : null}
        .
      </p>
      <div className="flex gap-3">
        <button type="button" onClick={() => reset()} className={buttonClass("primary")}>
          Try again
        </button>
        <Link href="/" className={buttonClass("secondary")}>
          Go to the dashboard
        </Link>
      </div>
    </main>
  );
}
