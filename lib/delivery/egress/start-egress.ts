import type { AppContext } from "../../context";
import { loadWarmupSchedule } from "./admin";
import { openEgress, type Egress } from "./egress";

/** A delivering process's egress state (MX mode): the warm-up schedule of MAILROOM_WARMUP_FILE, the addresses and counts of the database. */
export async function startEgress(ctx: AppContext): Promise<Egress> {
  const schedule = await loadWarmupSchedule(ctx.config.delivery.warmupFile);
  return openEgress(ctx.database, { schedule, log: ctx.log });
}
