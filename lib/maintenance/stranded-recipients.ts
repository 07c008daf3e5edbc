import { finalizeStrandedRecipients } from "../delivery/stranded-recipients";
import type { MaintenanceJob } from "./maintenance-job";

/** Recipients left pending without a live delivery job, or past the delivery max age, get their `failed` event (docs/adr/0305). */
export const strandedRecipientSweep: MaintenanceJob = {
  name: "maintenance-stranded-recipients",
  cron: "17 * * * *",
  run: async (ctx, now) => ({ strandedRecipients: await finalizeStrandedRecipients(ctx, now) }),
};
