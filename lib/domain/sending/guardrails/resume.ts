import type { Queryable } from "../../../storage/database";
import { markSendingResumed, updateGuardrailOverrides, type GuardrailRow } from "../../../storage/reputation-rows";
import { notifyScheduled } from "../../../storage/scheduled-rows";
import { DomainError } from "../../shared/domain-error";

/*
 * An owner's changes of the reputation guardrails (docs/adr/0136): the
 * resume and the account's own thresholds. Apart from guardrails.ts, whose
 * emails need the send path, so the dashboard's pages import only this.
 */

/**
 * An owner resumes a paused account (`by`: the staff email, or `cli`). Its
 * rates' windows restart now, so the mail that paused it cannot pause it again
 * at once; its scheduled messages that came due meanwhile are released.
 */
export async function resumeSending(q: Queryable, accountId: string, by: string): Promise<GuardrailRow> {
  const row = await markSendingResumed(q, accountId, by);
  if (!row) throw new DomainError("the account's sending is not paused");
  await notifyScheduled(q);
  return row;
}

export interface GuardrailOverrides {
  /** A rate 0–1, or null for the instance's. */
  pauseBounceRate?: number | null;
  pauseComplaintRate?: number | null;
  minVolume?: number | null;
}

export async function setGuardrailOverrides(q: Queryable, accountId: string, o: GuardrailOverrides): Promise<GuardrailRow> {
  for (const rate of [o.pauseBounceRate, o.pauseComplaintRate]) {
    if (rate !== undefined && rate !== null && !(rate > 0 && rate <= 1)) throw new DomainError("a pause rate is above 0 and at most 100%");
  }
  if (o.minVolume !== undefined && o.minVolume !== null && !(Number.isInteger(o.minVolume) && o.minVolume >= 1)) {
    throw new DomainError("the minimum volume is a whole number of at least 1");
  }
  const row = await updateGuardrailOverrides(q, accountId, {
    ...(o.pauseBounceRate !== undefined && { pauseBounceRate: o.pauseBounceRate }),
    ...(o.pauseComplaintRate !== undefined && { pauseComplaintRate: o.pauseComplaintRate }),
    ...(o.minVolume !== undefined && { guardrailMinVolume: o.minVolume }),
  });
  if (!row) throw new DomainError("no such account");
  return row;
}
