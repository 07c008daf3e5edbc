import type { ReputationResponse, ReputationThresholds, ReputationWindow } from "../../../contract/reputation";
import { selectStatsCounts } from "../../../storage/event-count-rows";
import type { Queryable } from "../../../storage/database";
import { selectGuardrailRow, type GuardrailRow } from "../../../storage/reputation-rows";
import type { RollupScheduler } from "../../events/event-counts";
import { reputationWindow, thresholdsOf, WINDOW_SECONDS, windowStart, assess, type WindowCounts } from "./guardrail-policy";

/**
 * An account's reputation (docs/adr/0136): its rates over the rolling day
 * and week, read from the hourly summaries plus the events not yet
 * summarised (lib/storage/event-count-rows.ts, the reads of GET /stats), so
 * a read costs two statements however much the account sent.
 */

/** The instance's guardrail settings (config.guardrails). */
export interface GuardrailSettings {
  pauseBounceRate: number;
  pauseComplaintRate: number;
  minVolume: number;
}

export function accountThresholds(settings: GuardrailSettings, row: Pick<GuardrailRow, "pauseBounceRate" | "pauseComplaintRate" | "guardrailMinVolume">): ReputationThresholds {
  return thresholdsOf({
    bounceRate: row.pauseBounceRate ?? settings.pauseBounceRate,
    complaintRate: row.pauseComplaintRate ?? settings.pauseComplaintRate,
    minVolume: row.guardrailMinVolume ?? settings.minVolume,
  });
}

const COUNTED = ["accepted", "delivered", "failed", "rejected", "complained"] as const;

async function windowCounts(q: Queryable, accountId: string, from: number, to: number, rollups?: RollupScheduler): Promise<ReputationWindow> {
  const { ru, oldest, counts } = await selectStatsCounts(q, { accountId, size: 3600, from, to, types: COUNTED });
  rollups?.schedule(accountId, { rolledUntil: ru, oldest }, () => {});
  const c: WindowCounts = { accepted: 0, delivered: 0, failed: 0, rejected: 0, complained: 0 };
  for (const r of counts) if (r.type in c) c[r.type as keyof WindowCounts] += r.n;
  return reputationWindow(c);
}

const unix = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

export interface Reputation extends ReputationResponse {
  /** What the rates say now, whatever the stored state (the evaluation acts on it). */
  assessed: ReturnType<typeof assess>;
  row: GuardrailRow;
}

/** Undefined for an account that does not exist. */
export async function readReputation(
  q: Queryable,
  settings: GuardrailSettings,
  accountId: string,
  options: { now?: number; rollups?: RollupScheduler } = {},
): Promise<Reputation | undefined> {
  const row = await selectGuardrailRow(q, accountId);
  if (!row) return undefined;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const resumedAt = unix(row.reputationResumedAt);
  const day = await windowCounts(q, accountId, windowStart(now, WINDOW_SECONDS.day, resumedAt), now, options.rollups);
  const week = await windowCounts(q, accountId, windowStart(now, WINDOW_SECONDS.week, resumedAt), now, options.rollups);
  const Thresholds = accountThresholds(settings, row);
  const Windows = { day, week };
  const assessed = assess(Windows, Thresholds);
  const paused = row.sendingPausedAt !== null;
  return {
    Status: paused ? "paused" : row.reputationWarnedAt !== null || assessed.level !== "ok" ? "warning" : "ok",
    PausedAt: unix(row.sendingPausedAt),
    PausedReason: paused ? row.sendingPausedReason : null,
    Windows,
    Thresholds,
    assessed,
    row,
  };
}

/** The wire answer of GET /api/v1/reputation. */
export function reputationResponse(r: Reputation): ReputationResponse {
  return { Status: r.Status, PausedAt: r.PausedAt, PausedReason: r.PausedReason, Windows: r.Windows, Thresholds: r.Thresholds };
}
