import Link from "next/link";
import { buttonClass } from "@/components/ui/button";

export default function NotFound() {
  return (
    <main className="mx-auto flex max-w-lg flex-col items-start gap-4 px-6 py-24">
      <p className="text-sm font-semibold text-slate-600 dark:text-slate-400">404</p>
      <h1 className="text-2xl font-bold">There is no such page</h1>
      <Link href="/" className={buttonClass("secondary")}>
        Go to the dashboard
      </Link>
    </main>
  );
}
