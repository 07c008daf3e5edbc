/**
 * `mailroom worker`: a process that runs only the queue workers (delivery
 * and webhook notifications) against the shared PostgreSQL, any number of
 * them beside the app processes. Same start order as server.ts minus the
 * HTTP server, the dashboard and first-start provisioning:
 * storage → migrations → queue → job runner (deliver, notify, maintenance).
 * Stops in reverse. Importing this module starts nothing.
 */
import type { Config } from "./config";
import type { AppContext } from "./context";
import { createLogger } from "./logger";
import { createStopStack, openProcessContext } from "./process-context";
import { isEmbeddedServerRunning } from "./storage/embedded";
import { serveWorkerMetrics } from "./worker-metrics";
import { startWorkers } from "./workers/start-workers";

export interface RunningWorkerProcess {
  ctx: AppContext;
  stop(): Promise<void>;
}

export async function startWorkerProcess(options: { config: Config }): Promise<RunningWorkerProcess> {
  const { config } = options;
  const log = createLogger(config.logLevel, { role: "worker" });
  const stack = createStopStack(log);
  try {
    // A worker never starts the embedded server itself: an app process
    // that joined it would lose its database when the worker exits.
    if (!config.databaseUrl && !(await isEmbeddedServerRunning(config.dataDir))) {
      throw new Error(
        `No Mailroom database is running in ${config.dataDir}: start the app first (npm start, with MAILROOM_WORKERS=off to leave delivery to workers), or set DATABASE_URL`,
      );
    }
    const ctx = await openProcessContext(config, log, stack, { applicationName: "mailroom-worker", joinEmbeddedOnly: true, readReplica: false });

    // A worker process never opens the inbound SMTP port: the app process owns it.
    const workers = await startWorkers(ctx, { workers: true, inbound: false });
    stack.push(workers.stop);
    if (config.workerMetricsPort !== undefined) {
      const metrics = await serveWorkerMetrics(ctx, config.host, config.workerMetricsPort);
      stack.push(metrics.stop);
      log.info({ url: metrics.url }, "worker metrics listening");
    }
    log.info({ pid: process.pid, concurrency: config.workers.concurrency }, "worker started");
    return { ctx, stop: stack.stopAll };
  } catch (err) {
    await stack.stopAll();
    throw err;
  }
}
