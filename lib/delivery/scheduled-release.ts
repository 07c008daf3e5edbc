import type { AppContext } from "../context";
import { nextReleaseInMs, releaseDueMessages } from "../domain/sending/scheduled-sends";
import { RELEASE_BATCH, SCHEDULED_CHANNEL } from "../storage/scheduled-rows";
import { listenForWork } from "../queue/listen";

/**
 * The release loop of scheduled sends (docs/adr/0125, docs/adr/0128), run
 * beside the `deliver` loop of every worker process. It does not poll: after
 * each pass it asks the database when the earliest scheduled message is due
 * and sleeps until then, and a new or rescheduled message (NOTIFY on
 * SCHEDULED_CHANNEL at its commit, from any process) wakes it to ask again.
 * A pass releases the due messages (their deliver jobs are inserted in the
 * releasing transaction, which announces them to the deliver loops), again at
 * once while a pass finds a full batch. Sleeps are bounded by
 * RELEASE_FALLBACK_MS, so a lost announcement costs at most that long; the
 * LISTEN connection, when it comes back after an outage, wakes the loop too.
 * Several processes share the work through SKIP LOCKED; a process killed
 * mid-pass leaves its transaction rolled back, so the messages stay
 * scheduled for the next pass of any process (on start, every process makes one).
 */

/** The longest sleep: what a lost announcement can delay a release by. */
export const RELEASE_FALLBACK_MS = 30_000;
/** After a failed pass (a database outage): the next try. */
const RETRY_MS = 1000;
/** Past the due time, so that `send_at <= now()` holds when the pass runs (timers may fire a little early). */
const DUE_MARGIN_MS = 5;

export async function startScheduledRelease(ctx: AppContext, options: { fallbackMs?: number } = {}): Promise<{ stop(): Promise<void> }> {
  const fallbackMs = options.fallbackMs ?? RELEASE_FALLBACK_MS;
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> | undefined;
  let wokenDuringPass = false;

  /** One pass: release what is due, then the time to sleep. */
  const run = async (): Promise<number> => {
    try {
      // A full batch means more are due: release them now.
      while (running && (await releaseDueMessages(ctx.database, ctx.boss)) >= RELEASE_BATCH);
      const next = await nextReleaseInMs(ctx.database);
      return next === undefined ? fallbackMs : Math.min(Math.max(0, Math.ceil(next)) + DUE_MARGIN_MS, fallbackMs);
    } catch (err) {
      // A database outage is logged once per outage (docs/adr/0008); anything else every time.
      if (!ctx.outage.report("delivery", err, { loop: "scheduled-release" })) ctx.log.error({ err }, "scheduled release failed; retried shortly");
      return RETRY_MS;
    }
  };
  const wake = () => {
    if (!running) return;
    if (pass) {
      // The pass may have read the next time before this message was committed: ask again after it.
      wokenDuringPass = true;
      return;
    }
    if (timer) clearTimeout(timer);
    timer = undefined;
    wokenDuringPass = false;
    pass = run().then((sleepMs) => {
      pass = undefined;
      if (!running) return;
      if (wokenDuringPass) return wake();
      timer = setTimeout(wake, sleepMs);
    });
  };

  const listener = await listenForWork(ctx.database.url, SCHEDULED_CHANNEL, wake, ctx.log, { applicationName: "mailroom-scheduled-listen" });
  wake();
  return {
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      await listener.stop();
      await pass;
    },
  };
}
