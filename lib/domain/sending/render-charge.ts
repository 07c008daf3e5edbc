import { errorItem } from "../../contract/errors";
import type { Database, Queryable } from "../../storage/database";
import { withTransaction } from "../../storage/transaction";
import { consumeLimits, readUsage, type ConsumeResult } from "./limit-counters";
import { hasLimits, refusingWindow, secondsToReset, type WindowKind, type WindowUsage } from "./limits";
import type { Limits } from "../accounts/plans";
import type { RenderOutcome } from "../templates/render";
import { renderRefusal, type Refused } from "../templates/templates";

/**
 * What a send's template render costs its key (docs/adr/0122): a render a
 * bound stopped (it ran, up to the bound) counts as one email against the
 * key's sending windows (docs/contract.md §6), the counters POST /email
 * itself consumes; a key with no email left in a window is refused 429 (or
 * 17 for the day) before any render. A render that was refused is
 * otherwise free to repeat, 422 after 422.
 */

/** The key a send renders for. */
export interface RenderPayer {
  keyId: string;
  limits: Limits;
}

/** A bound stopped the render after it ran (output, steps, depth, time): charged. Not run (busy) or not parsable: not. */
export function isChargedRefusal(outcome: Exclude<RenderOutcome, { ok: true }>): boolean {
  return outcome.reason === "output" || outcome.reason === "steps" || outcome.reason === "depth" || outcome.reason === "time";
}

/** The windows with no email left. */
export function spentWindows(usages: WindowUsage[]): WindowKind[] {
  return usages.filter((u) => u.used >= u.limit).map((u) => u.kind);
}

/** 429 (code 17 for the day) with the Retry-After of the window that refuses, as POST /email's limits answer (§6.2); undefined when none does. */
export function windowRefusal(refused: WindowKind[], now: number): Refused | undefined {
  const w = refusingWindow(refused);
  return w && { ok: false, errors: [errorItem(w.code)], retryAfter: secondsToReset(w.kind, now) };
}

/** Before a render: the refusal of a key that has a spent window, else undefined. */
export async function spentWindowRefusal(q: Queryable, payer: RenderPayer, now: number): Promise<Refused | undefined> {
  if (!hasLimits(payer.limits)) return undefined;
  return windowRefusal(spentWindows(await readUsage(q, payer.keyId, payer.limits, now)), now);
}

/** A refused render's answer, charged first when it ran: 422 `TemplateModel`, or the window's 429 when the charge finds it spent. */
export async function chargedRenderRefusal(database: Database, payer: RenderPayer, outcome: Exclude<RenderOutcome, { ok: true }>, now: number): Promise<Refused> {
  if (!isChargedRefusal(outcome)) return renderRefusal(outcome);
  const charged = await charge(database, payer, now);
  return (charged.ok ? undefined : windowRefusal(charged.refused, now)) ?? renderRefusal(outcome);
}

class ChargeRefused extends Error {
  constructor(readonly result: Extract<ConsumeResult, { ok: false }>) {
    super("a window refused the charge");
  }
}

/** One email on every window, or none: a window that refuses rolls back the others' increments (limit-counters.ts). */
async function charge(database: Database, payer: RenderPayer, now: number): Promise<ConsumeResult> {
  try {
    return await withTransaction(database, async (tx) => {
      const result = await consumeLimits(tx, payer.keyId, payer.limits, 1, now);
      if (!result.ok) throw new ChargeRefused(result);
      return result;
    });
  } catch (err) {
    if (err instanceof ChargeRefused) return err.result;
    throw err;
  }
}
