import type { AppContext } from "../../lib/context";
import { purgePastRetention } from "../../lib/maintenance/retention-purge";
import { idempotencyKeyPurge } from "../../lib/maintenance/idempotency-keys";
import { signInFailurePurge } from "../../lib/maintenance/sign-in-failures";
import { strandedRecipientSweep } from "../../lib/maintenance/stranded-recipients";

/**
 * The hourly database maintenance run at once, in the order that lets one
 * pass do everything (stranded recipients are finalised before the messages
 * whose recipients are all final are purged), for the integration tests that
 * need its effects now rather than at the next hourly schedule.
 */
export async function runMaintenance(ctx: AppContext, now = new Date()) {
  const { strandedRecipients } = await strandedRecipientSweep.run(ctx, now);
  const purged = await purgePastRetention(ctx, now);
  const { signInFailures } = await signInFailurePurge.run(ctx, now);
  const { idempotencyKeys } = await idempotencyKeyPurge.run(ctx, now);
  return { strandedRecipients: strandedRecipients ?? 0, ...purged, signInFailures: signInFailures ?? 0, idempotencyKeys: idempotencyKeys ?? 0 };
}

export type MaintenanceReport = Awaited<ReturnType<typeof runMaintenance>>;
