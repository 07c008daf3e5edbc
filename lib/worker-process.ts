/**
 * `mailroom worker`: a process that runs only the queue workers (delivery
 * and webhook notifications) against the shared PostgreSQL, any number of
 * them beside the app processes. Same start order as server.ts minus the
 * HTTP server, the dashboard and first-start provisioning:
 * storage → migrations → queue → delivery workers → notification workers.
 * Stops in reverse. Importing this module starts nothing.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Config } from "./config";
import type { AppContext } from "./context";
import { startDelivery } from "./delivery/start";
import { createLogger } from "./logger";
import { startQueue } from "./queue/boss";
import { setServerContext } from "./runtime";
import { openDatabase } from "./storage/database";
import { startEmbeddedPostgres } from "./storage/embedded";
import { migrate } from "./storage/migrate";
import { startNotifications } from "./webhooks/start";

export interface RunningWorkerProcess {
  ctx: AppContext;
  stop(): Promise<void>;
}

type Stopper = () => Promise<void>;

/** True when a live postmaster runs on the embedded data directory (an app process started it). */
function isEmbeddedServerRunning(dataDir: string): boolean {
  const pidFile = path.join(dataDir, "postgres", "postmaster.pid");
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startWorkerProcess(options: { config: Config }): Promise<RunningWorkerProcess> {
  const { config } = options;
  const log = createLogger(config.logLevel, { role: "worker" });
  const stoppers: Stopper[] = [];
  const stopAll = async () => {
    for (const stop of stoppers.reverse()) await stop().catch((err) => log.error({ err }, "stop failed"));
    stoppers.length = 0;
  };
  try {
    let url = config.databaseUrl;
    if (!url) {
      // A worker never starts the embedded server itself: an app process
      // that joined it would lose its database when the worker exits.
      if (!isEmbeddedServerRunning(config.dataDir)) {
        throw new Error(
          `No Mailroom database is running in ${config.dataDir}: start the app first (npm start, with MAILROOM_WORKERS=off to leave delivery to workers), or set DATABASE_URL`,
        );
      }
      const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort });
      if (embedded.owned) stoppers.push(embedded.stop);
      url = embedded.url;
    }
    const database = openDatabase(url, { max: config.dbPoolSize, applicationName: "mailroom-worker" });
    stoppers.push(() => database.close());
    await migrate(database.pool);

    const boss = await startQueue(url, {
      onError: (err) => log.warn({ err }, "queue error"),
      // Also how soon pg-boss notices the expired jobs of a worker that died.
      maintenanceIntervalSeconds: config.queue.maintenanceIntervalSeconds,
    });
    stoppers.push(() => boss.stop({ graceful: true, timeout: 5000 }));

    const ctx: AppContext = { config, database, boss, log };
    setServerContext(ctx);

    // A worker process never opens the inbound SMTP port: the app process owns it.
    const delivery = await startDelivery(ctx, { workers: true, inbound: false });
    stoppers.push(delivery.stop);
    const notifications = await startNotifications(ctx, { workers: true });
    stoppers.push(notifications.stop);
    log.info({ pid: process.pid, concurrency: config.workers.concurrency }, "worker started");
    return { ctx, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
