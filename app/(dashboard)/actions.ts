"use server";

import { describeApiError } from "@/lib/api-client/describe-error";
import { signOut } from "@/lib/auth/auth";
import { requireRole } from "@/lib/auth/require-role";
import { loadOverview, type OverviewData, type OverviewParams } from "./_lib/load-overview";

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/login" });
}

export type OverviewResult = { ok: true; data: OverviewData } | { ok: false; error: string };

/** The overview's numbers for a range (react-query refetches through this). */
export async function getOverviewAction(params: OverviewParams): Promise<OverviewResult> {
  await requireRole("overview");
  try {
    const str = (v: unknown) => (typeof v === "string" ? v.slice(0, 40) : undefined);
    const p = (params ?? {}) as Record<string, unknown>;
    return { ok: true, data: await loadOverview({ range: str(p.range), from: str(p.from), to: str(p.to), source: str(p.source) }) };
  } catch (err) {
    return { ok: false, error: describeApiError(err) };
  }
}
