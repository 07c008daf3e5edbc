import { Hono } from "hono";
import type { AppContext } from "../../context";
import { ping } from "../../storage/health-rows";
import { isMigrated } from "../../storage/migrate";
import { describeReplicaHealth } from "../../storage/replica-lag";

/**
 * /healthz: the process answers and the embedded PostgreSQL server it owns
 * runs (while that server is down the process is not healthy: a liveness
 * probe may restart it). /readyz: the database and the queue answer and
 * migrations are applied. With a read replica configured, /readyz also
 * tells its state (`readReplica`); it never makes the process unready: the
 * event reads run on the primary meanwhile (docs/adr/0037).
 */
export function createHealthRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  app.get("/healthz", (c) => {
    if (ctx.databaseServer && !ctx.databaseServer.isUp()) {
      return c.json({ status: "unhealthy", checks: { database: "the embedded PostgreSQL server is down; restarting it" } }, 503);
    }
    return c.json({ status: "ok" });
  });
  app.get("/readyz", async (c) => {
    const checks: Record<string, string> = {};
    try {
      await ping(ctx.database);
      checks.database = (await isMigrated(ctx.database)) ? "ok" : "migrations pending";
    } catch (err) {
      checks.database = `unreachable: ${(err as Error).message}`;
    }
    try {
      await ctx.boss.getQueueSize("deliver");
      checks.queue = "ok";
    } catch (err) {
      checks.queue = `unreachable: ${(err as Error).message}`;
    }
    const ready = Object.values(checks).every((v) => v === "ok");
    const replica = ctx.reads.health();
    if (replica.state !== "none") checks.readReplica = describeReplicaHealth(replica);
    return c.json({ status: ready ? "ready" : "not ready", checks }, ready ? 200 : 503);
  });
  return app;
}
