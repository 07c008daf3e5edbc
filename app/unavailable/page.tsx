import type { Metadata } from "next";
import Link from "next/link";
import { buttonClass } from "@/components/ui/button";
import { safeReturnPath } from "@/lib/auth/safe-return";
import { DATABASE_UNAVAILABLE_MESSAGE } from "@/lib/dashboard/access";
import { RetryAfter } from "./retry-after";

export const metadata: Metadata = { title: "Database unavailable" };

/** Where a dashboard page sends a signed-in visitor whose session the database could not check (ADR 0513). */
export default async function DatabaseUnavailable({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const next = safeReturnPath(typeof params.next === "string" ? params.next : undefined);
  return (
    <main className="mx-auto flex max-w-lg flex-col items-start gap-4 px-6 py-24">
      <p className="text-sm font-semibold text-amber-700 dark:text-amber-400">Database</p>
      <h1 className="text-2xl font-bold">The database is not answering</h1>
      <p className="text-slate-700 dark:text-slate-300">
        {DATABASE_UNAVAILABLE_MESSAGE} You are still signed in: the page opens again as soon as the database answers. Mail already accepted is
        kept there and goes out once it is back.
      </p>
      <RetryAfter seconds={5} href={next} />
      <Link href={next} className={buttonClass("secondary")} data-testid="unavailable-retry">
        Try again now
      </Link>
    </main>
  );
}
