import type { AppContext } from "../../context";
import { DestinationGate } from "./gate";
import { createHoldReader, placeHold } from "./holds";
import { watchShapingFile } from "./shaping-file";

/**
 * The destinations' gate of a worker process's relay or MX transport: the
 * holds in memory, the shaping rules (defaults and MAILROOM_SHAPING_FILE),
 * automatic holds on the database, the state metric on /metrics.
 */
export async function openDestinationGate(ctx: AppContext): Promise<{ gate: DestinationGate; stop(): Promise<void> }> {
  const holds = await createHoldReader(ctx.database, { log: ctx.log });
  const shaping = watchShapingFile(ctx.config.delivery.shapingFile, { log: ctx.log });
  const gate = new DestinationGate({
    holds,
    rules: shaping.rules,
    placeHold: async (hold) => {
      await placeHold(ctx.database, hold);
      await holds.refresh();
    },
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
