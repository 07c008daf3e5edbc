import Link from "next/link";
import { buttonClass } from "@/components/ui/button";

export default function Forbidden() {
  return (
    <main className="mx-auto flex max-w-lg flex-col items-start gap-4 px-6 py-24">
      <p className="text-sm font-semibold text-red-700 dark:text-red-400">403</p>
      <h1 className="text-2xl font-bold">Your role may not open this page</h1>
      <p className="text-slate-700 dark:text-slate-300">
        Ask an admin for a role that includes it, or go back to a page you can use.
      </p>
      <Link href="/" className={buttonClass("secondary")}>
        Go to the dashboard
      </Link>
    </main>
  );
}
