import "server-only";
import { notFound } from "next/navigation";
import { readReputation } from "../domain/sending/guardrails/reputation";
import { resumeSending } from "../domain/sending/guardrails/resume";
import { getServerContext } from "../runtime";
import type { DashboardUser } from "./access";

/**
 * The reputation guardrails in the dashboard (docs/adr/0136): the banner of
 * an account that is warned or paused, and an owner's resume, the same use
 * case as `mailroom accounts resume`.
 */

export interface ReputationBannerView {
  status: "warning" | "paused";
  reason: string;
  /** ISO time of the pause, when paused. */
  pausedAt: string | null;
}

/** Undefined when the account is fine, or when its state cannot be read now (the page still renders). */
export async function reputationBanner(accountId: string): Promise<ReputationBannerView | undefined> {
  const ctx = getServerContext();
  try {
    const rep = await readReputation(ctx.database, ctx.config.guardrails, accountId);
    if (!rep || rep.Status === "ok") return undefined;
    if (rep.Status === "paused") {
      return { status: "paused", reason: rep.PausedReason ?? "", pausedAt: rep.row.sendingPausedAt?.toISOString() ?? null };
    }
    return { status: "warning", reason: rep.row.reputationWarning ?? rep.assessed.reason ?? "", pausedAt: null };
  } catch (err) {
    ctx.log.warn({ err, accountId }, "the reputation banner could not be read");
    return undefined;
  }
}

/** An owner resumes the account's sending, recorded with their email. */
export async function resumeSendingAsOwner(owner: DashboardUser, accountId: string): Promise<null> {
  if (!owner.isOwner) notFound();
  const ctx = getServerContext();
  await resumeSending(ctx.database, accountId, owner.email);
  // Takes effect at once in this process; other processes see it within their key cache's few seconds.
  ctx.apiKeyAuth.results.clear();
  return null;
}
