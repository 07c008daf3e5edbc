"use client";

import { useEffect, useState } from "react";

/** Goes back to `href` after `seconds`, saying so (the page it left retries its own database check). */
export function RetryAfter({ seconds, href }: { seconds: number; href: string }) {
  const [left, setLeft] = useState(seconds);
  useEffect(() => {
    if (left <= 0) {
      // A full load, not a client navigation: the dashboard layout checks the session again on the server.
      window.location.assign(href);
      return;
    }
    const timer = setTimeout(() => setLeft((n) => n - 1), 1000);
    return () => clearTimeout(timer);
  }, [left, href]);
  return (
    <p className="text-sm text-slate-600 dark:text-slate-400" aria-live="polite" data-testid="unavailable-countdown">
      {left > 0 ? `Trying again in ${left} s…` : "Trying again…"}
    </p>
  );
}
