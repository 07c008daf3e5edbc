import { Hono } from "hono";
import type { AppContext } from "../../context";
import { ping } from "../../storage/health-rows";
import { isMigrated } from "../../storage/migrate";
import { describeReplicaHealth } from "../../storage/replica-lag";
import { withTimeout } from "../../with-timeout";

/**
 * /healthz: the process answers and the embedded PostgreSQL server it owns
 * runs (while that server is down the process is not healthy: a liveness
 * probe may restart it). /readyz: the database and the queue answer and
 * migrations are applied. With a read replica configured, /readyz also
 * tells its state (`readReplica`); it never makes the process unready: the
 * event reads run on the primary meanwhile (docs/adr/0037). A check that
 * gets no answer within READY_CHECK_DEADLINE_MS fails: a probe of a server
 * that accepts connections but never answers must not hang (docs/adr/0514).
 */
export const READY_CHECK_DEADLINE_MS = 5_000;

export function createHealthRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  app.get("/healthz", (c) => {
    if (ctx.databaseServer && !ctx.databaseServer.isUp()) {
      return c.json({ status: "unhealthy", checks: { database: "the embedded PostgreSQL server is down; restarting it" } }, 503);
    }
    return c.json({ status: "ok" });
  });
  app.get("/readyz", async (c) => {
    // Side by side: a server that does not answer costs the probe one deadline, not one per check.
    const [database, queue] = await Promise.all([
      withTimeout(ping(ctx.database).then(() => isMigrated(ctx.database)), READY_CHECK_DEADLINE_MS).then(
        (migrated) => (migrated ? "ok" : "migrations pending"),
        (err: Error) => `unreachable: ${err.message}`,
      ),
      withTimeout(ctx.boss.getQueueSize("deliver"), READY_CHECK_DEADLINE_MS).then(
        () => "ok",
        (err: Error) => `unreachable: ${err.message}`,
      ),
    ]);
    const checks: Record<string, string> = { database, queue };
    const ready = Object.values(checks).every((v) => v === "ok");
    const replica = ctx.reads.health();
    if (replica.state !== "none") checks.readReplica = describeReplicaHealth(replica);
    return c.json({ status: ready ? "ready" : "not ready", checks }, ready ? 200 : 503);
  });
  return app;
}
