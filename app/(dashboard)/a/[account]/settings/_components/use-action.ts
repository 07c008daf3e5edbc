"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import type { ActionResult } from "@/lib/dashboard/action";
import { useAccountId } from "@/components/shell/use-account";

/**
 * Runs a settings action of the account of the URL: pending state, the error message of a refusal,
 * and a refresh of the server-rendered lists after a success.
 */
export function useSettingsAction() {
  const accountId = useAccountId();
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | null>(null);
  // Pending from the click until the refreshed lists arrive, not only during the refresh.
  const [running, setRunning] = useState(false);
  async function run<T>(call: () => Promise<ActionResult<T>>): Promise<(ActionResult<T> & { ok: true }) | undefined> {
    setError(null);
    let result: ActionResult<T>;
    setRunning(true);
    try {
      result = await call();
    } catch {
      setError("The request failed. Check your connection and sign-in, then try again.");
      return undefined;
    } finally {
      setRunning(false);
    }
    if (!result.ok) {
      setError(result.error);
      return undefined;
    }
    startTransition(() => router.refresh());
    return result as ActionResult<T> & { ok: true };
  }
  return { run, pending: pending || running, error, setError, accountId };
}

export function formatIso(iso: string | null): string {
  return iso ? iso.replace("T", " ").slice(0, 19) : "—";
}
