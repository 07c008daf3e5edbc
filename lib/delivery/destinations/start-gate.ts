import type { AppContext } from "../../context";
import { upsertThrottle } from "../../storage/destination-throttle-rows";
import { DestinationGate } from "./gate";
import { createHoldReader, placeHold } from "./holds";
import { watchShapingFile } from "./shaping-file";
import { shareOfRules, type ShapingRules } from "./shaping-rules";

/**
 * The destinations' gate of a worker process's relay or MX transport: the
 * holds in memory, the shaping rules (defaults and MAILROOM_SHAPING_FILE,
 * this process's share of them),
 * automatic holds and throttles on the database, the state metric on /metrics.
 */
export async function openDestinationGate(ctx: AppContext): Promise<{ gate: DestinationGate; stop(): Promise<void> }> {
  const holds = await createHoldReader(ctx.database, { log: ctx.log });
  const shaping = watchShapingFile(ctx.config.delivery.shapingFile, { log: ctx.log });
  // The forked worker processes share each rule (separate `mailroom worker` processes are not counted).
  const processes = ctx.config.workers.mode === "process" ? ctx.config.workers.processes : 1;
  let seen: ShapingRules | undefined;
  let shared: ShapingRules = {};
  const rules = () => {
    const current = shaping.rules();
    if (current !== seen) {
      seen = current;
      shared = shareOfRules(current, processes);
    }
    return shared;
  };
  const gate = new DestinationGate({
    holds,
    rules,
    placeHold: async (hold) => {
      await placeHold(ctx.database, hold);
      await holds.refresh();
    },
    onThrottle: ({ key, domain, throttle, endsAt }) =>
      void upsertThrottle(ctx.database, { key, domain, perMinute: throttle.perMinute, connections: throttle.connections, reason: throttle.reason, endsAt: new Date(endsAt) }).catch((err: unknown) =>
        ctx.log.warn({ err, destination: key }, "a throttle could not be recorded for queue list; it holds in this process all the same"),
      ),
    suspendMs: ctx.config.delivery.suspendMs,
    log: ctx.log,
    registry: ctx.httpMetrics.registry,
  });
  return {
    gate,
    async stop() {
      shaping.stop();
      await holds.stop();
    },
  };
}
