import type { AppContext } from "../context";
import { RELEASE_BATCH, releaseDueMessages } from "../domain/scheduled-sends";

/**
 * The release loop of scheduled sends (docs/adr/0125), run beside the
 * `deliver` loop of every worker process: once a second it releases the due
 * scheduled messages (their deliver jobs are inserted in the releasing
 * transaction, and the insert wakes the deliver loops), again at once while
 * a pass finds a full batch. Several processes share the work through SKIP
 * LOCKED; a process killed mid-pass leaves its transaction rolled back, so
 * the messages stay scheduled for the next pass of any process.
 */

export const RELEASE_INTERVAL_MS = 1000;

export function startScheduledRelease(ctx: AppContext, options: { intervalMs?: number } = {}): { stop(): Promise<void> } {
  const intervalMs = options.intervalMs ?? RELEASE_INTERVAL_MS;
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();

  const run = async () => {
    try {
      // A full batch means more are due: release them now, not a second later.
      while (running && (await releaseDueMessages(ctx.database, ctx.boss)) >= RELEASE_BATCH);
    } catch (err) {
      // A database outage is logged once per outage (docs/adr/0008); anything else every time.
      if (!ctx.outage.report("delivery", err, { loop: "scheduled-release" })) ctx.log.error({ err }, "scheduled release failed; retried next pass");
    }
  };
  const tick = () => {
    if (!running) return;
    pass = run().finally(() => {
      if (running) timer = setTimeout(tick, intervalMs);
    });
  };
  tick();
  return {
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      await pass;
    },
  };
}
