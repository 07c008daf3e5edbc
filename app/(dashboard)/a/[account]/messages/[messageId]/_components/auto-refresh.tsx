"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/** Re-renders the server page every few seconds while the message is still in flight. */
export function AutoRefresh({ active, everyMs = 5000 }: { active: boolean; everyMs?: number }) {
  const router = useRouter();
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => router.refresh(), everyMs);
    return () => clearInterval(timer);
  }, [active, everyMs, router]);
  return active ? (
    <p role="status" className="text-xs text-slate-600 dark:text-slate-400">
      Some recipients have no final outcome yet: this page refreshes every {Math.round(everyMs / 1000)} s.
    </p>
  ) : null;
}
