import type { Config } from "./config";
import type { AppContext } from "./context";
import type { Logger } from "./logger";
import { createMessageLoader } from "./delivery/load-messages";
import { createRoundWriter } from "./delivery/record-outcomes";
import { createUnitAcceptor, createVerifiedDomainCache, singleAcceptor } from "./domain/send-email";
import { createApiKeyAuthCache } from "./domain/api-keys";
import { createTrackingSecretSource } from "./domain/tracking-secret";
import { createDashboardApiCache } from "./api-client/dashboard-cache";
import { createRollupScheduler } from "./domain/event-counts";
import { createBacklogMonitor } from "./domain/delivery-backlog";
import { createMessageFactsWriter } from "./domain/tracked-links";
import { createHttpMetrics } from "./http/metrics";
import { createAppMetrics } from "./metrics";
import { startQueue, type PgBoss } from "./queue/boss";
import { waitingDeliverEntries } from "./queue/delivery-backlog-sql";
import { setServerContext } from "./runtime";
import { openDatabase, type Database } from "./storage/database";
import { createDiskMonitor, type DiskMonitor } from "./storage/disk-space";
import { startEmbeddedPostgres } from "./storage/embedded";
import { createOutageLog } from "./storage/outage-log";
import { clusterDirOf } from "./storage/postgres-as-root";
import { migrate } from "./storage/migrate";

/**
 * The start sequence every Mailroom process shares (server.ts and
 * `mailroom worker`): storage (the embedded server or DATABASE_URL) →
 * migrations → queue → context. What it starts goes on the stop stack, to
 * be stopped in reverse.
 */

export type Stopper = () => Promise<void>;

export interface StopStack {
  push(stopper: Stopper): void;
  /** Stops everything pushed, newest first; a failing step is logged and skipped. */
  stopAll(): Promise<void>;
}

export function createStopStack(log: Logger): StopStack {
  const stoppers: Stopper[] = [];
  return {
    push: (stopper) => void stoppers.push(stopper),
    async stopAll() {
      for (const stop of stoppers.splice(0).reverse()) await stop().catch((err: unknown) => log.error({ err }, "stop failed"));
    },
  };
}

export async function openProcessContext(
  config: Config,
  log: Logger,
  stack: StopStack,
  options: { applicationName?: string; joinEmbeddedOnly?: boolean } = {},
): Promise<AppContext> {
  let url = config.databaseUrl;
  let databaseServer: AppContext["databaseServer"];
  if (!url) {
    const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, logger: log, joinOnly: options.joinEmbeddedOnly, ownProcessGroup: true });
    if (embedded.owned) {
      stack.push(() => embedded.stop());
      databaseServer = embedded; // started and supervised here: /healthz reports it
    }
    url = embedded.url;
  }
  const database = openDatabase(url, { max: config.dbPoolSize, applicationName: options.applicationName });
  stack.push(() => database.close());
  await migrate(database.pool);

  const boss = await startQueue(url, {
    onError: (err) => log.warn({ err }, "queue error"),
    // Also how soon pg-boss notices the expired jobs of a process that died.
    maintenanceIntervalSeconds: config.queue.maintenanceIntervalSeconds,
  });
  stack.push(() => boss.stop({ graceful: true, timeout: 5000 }));

  const ctx = buildAppContext({ config, database, boss, log, databaseServer });
  stack.push(async () => {
    ctx.disk.stop();
    ctx.backlog.stop();
    ctx.outage.stop();
  });
  setServerContext(ctx);
  return ctx;
}

/** The context of a process whose storage and queue are open: the per-process objects are built here, once. */
export function buildAppContext(base: { config: Config; database: Database; boss: PgBoss; log: Logger; databaseServer?: AppContext["databaseServer"] }): AppContext {
  const httpMetrics = createHttpMetrics();
  const { disk: diskConfig } = base.config;
  const disk: DiskMonitor = createDiskMonitor({
    // The embedded server's cluster may live outside the data directory (as root: lib/storage/postgres-as-root.ts): watch its disk.
    dir: diskConfig.dir && !base.config.databaseUrl ? clusterDirOf(diskConfig.dir) : diskConfig.dir,
    thresholds: { warnFree: diskConfig.warnFree, minFree: diskConfig.minFree },
    intervalMs: diskConfig.checkIntervalMs,
    log: base.log,
  });
  const backlog = createBacklogMonitor({
    max: base.config.backlog.maxMessages,
    intervalMs: base.config.backlog.checkIntervalMs,
    read: (bound) => waitingDeliverEntries(base.database.pool, bound),
    log: base.log,
  });
  // Single messages and batches share one group commit (docs/adr/0102, docs/adr/0126).
  const acceptUnit = createUnitAcceptor(base.database, base.boss);
  const acceptor = singleAcceptor(acceptUnit);
  return {
    ...base,
    publicUrl: base.config.publicUrl,
    httpMetrics,
    metrics: createAppMetrics(httpMetrics.registry, base.database.pool, disk, backlog),
    // Below MAILROOM_DISK_MIN_FREE nothing new is accepted (POST /email and SMTP submission share this path).
    // Past MAILROOM_MAX_BACKLOG waiting messages, nothing new for the workers (docs/adr/0322); a scheduled send waits for its time anyway.
    accept: (acceptance) => {
      disk.assertAccepting();
      if (acceptance.sendAt === undefined) backlog.assertAccepting();
      return acceptor(acceptance);
    },
    acceptBatch: (unit) => {
      disk.assertAccepting();
      if (unit.items.some((item) => item.sendAt === undefined)) backlog.assertAccepting();
      return acceptUnit(unit);
    },
    outage: createOutageLog(base.log, () => base.database.pool.query("SELECT 1")),
    disk,
    backlog,
    deliveryLoader: createMessageLoader(base.database.pool),
    roundWriter: createRoundWriter(base.database, base.boss),
    messageFacts: createMessageFactsWriter(base.database),
    rollups: createRollupScheduler(base.database),
    verifiedDomains: createVerifiedDomainCache(),
    apiKeyAuth: createApiKeyAuthCache(),
    trackingSecret: createTrackingSecretSource(base.database.db, base.config.tracking.secret),
    dashboardApi: createDashboardApiCache(),
    inbound: {},
  };
}
