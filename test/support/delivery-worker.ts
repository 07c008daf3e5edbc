/**
 * A delivery worker process for tests (the crash test kills it with
 * SIGKILL): storage + queue + the deliver loop of startWorkers (no inbound,
 * notifications or maintenance)
 * on DATABASE_URL, configured from the environment like any process. Prints
 * "ready" once its job loop runs. Run with `node --import tsx`.
 */
import { buildConfig } from "../../lib/config";
import type { AppContext } from "../../lib/context";
import { createLogger } from "../../lib/logger";
import { buildAppContext } from "../../lib/process-context";
import { startQueue } from "../../lib/queue/boss";
import { openDatabase } from "../../lib/storage/database";
import { startWorkers } from "../../lib/workers/start-workers";

const config = buildConfig(process.env);
const log = createLogger(config.logLevel, { role: "test-worker" });
const database = openDatabase(config.databaseUrl!, { max: 8, applicationName: "mailroom-test-worker" });
const boss = await startQueue(config.databaseUrl!, {
  maintenanceIntervalSeconds: config.queue.maintenanceIntervalSeconds,
  onError: (err) => log.warn({ err }, "queue error"),
});
const ctx: AppContext = buildAppContext({ config, database, boss, log });
const delivery = await startWorkers(ctx, { workers: true, inbound: false, notifications: false, maintenance: false });
process.stdout.write("ready\n");

const shutdown = async () => {
  await delivery.stop();
  await boss.stop({ graceful: true, timeout: 2000 });
  await database.close();
  process.exit(0);
};
process.on("SIGTERM", () => void shutdown());
process.on("SIGINT", () => void shutdown());
