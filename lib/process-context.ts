import type { Config } from "./config";
import type { AppContext } from "./context";
import type { Logger } from "./logger";
import { createUnitAcceptor, createVerifiedDomainCache } from "./domain/sending/send-email";
import { refusingAcceptors } from "./domain/sending/acceptance-refusals";
import { createApiKeyAuthCache } from "./domain/accounts/api-keys";
import { lookupOn } from "./net/dns-resolver";
import { createTrackingSecretSource } from "./domain/tracking/tracking-secret";
import { createDashboardApiCache } from "./api-client/dashboard-cache";
import { createRollupScheduler } from "./domain/events/event-counts";
import { createBacklogMonitor } from "./domain/sending/delivery-backlog";
import { createGuardrailMonitor } from "./domain/sending/guardrails/guardrail-monitor";
import { evaluateGuardrails } from "./domain/sending/guardrails/guardrails";
import { createHttpMetrics } from "./http/metrics";
import { createAppMetrics } from "./metrics";
import { startQueue, type PgBoss } from "./queue/boss";
import { deliverQueue } from "./jobs/deliver";
import { inboundPostQueue } from "./jobs/inbound-post";
import { setServerContext } from "./runtime";
import { openDatabase, type Database } from "./storage/database";
import { waitingDeliverEntries, waitingJobs } from "./storage/delivery-backlog-rows";
import { ping } from "./storage/health-rows";
import { createDiskMonitor, type DiskMonitor } from "./storage/disk-space";
import { startEmbeddedPostgres } from "./storage/embedded";
import { createOutageLog } from "./storage/outage-log";
import { createReadRouter } from "./storage/read-replica";
import { describeReplicaHealth } from "./storage/replica-lag";
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
  options: { applicationName?: string; joinEmbeddedOnly?: boolean; readReplica?: boolean } = {},
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
  const database = openDatabase(url, { max: config.dbPoolSize, applicationName: options.applicationName, queryTimeoutMillis: config.dbQueryTimeoutMs });
  stack.push(() => database.close());
  await migrate(database);

  const boss = await startQueue(url, {
    onError: (err) => log.warn({ err }, "queue error"),
    // Also how soon pg-boss notices the expired jobs of a process that died.
    maintenanceIntervalSeconds: config.queue.maintenanceIntervalSeconds,
  });
  stack.push(() => boss.stop({ graceful: true, timeout: 5000 }));

  // The event reads' replica (docs/adr/0035): a process that serves no reads (a worker) leaves it closed.
  let readDatabase: Database | undefined;
  if (config.readReplica && options.readReplica !== false) {
    // A replica that went away must not hold a read for long before it falls back to the primary.
    readDatabase = openDatabase(config.readReplica.url, { max: config.dbPoolSize, applicationName: `${options.applicationName ?? "mailroom"}-read`, connectionTimeoutMillis: 2_000, queryTimeoutMillis: config.dbQueryTimeoutMs });
    stack.push(() => readDatabase!.close());
  }
  const ctx = buildAppContext({ config, database, boss, log, databaseServer, readDatabase });
  ctx.reads.start();
  stack.push(async () => ctx.reads.stop());
  stack.push(async () => {
    ctx.disk.stop();
    ctx.backlog.stop();
    ctx.inboundBacklog.stop();
    ctx.guardrails.stop();
    ctx.outage.stop();
  });
  setServerContext(ctx);
  return ctx;
}

/** The context of a process whose storage and queue are open: the per-process objects are built here, once. */
export function buildAppContext(base: {
  config: Config;
  database: Database;
  boss: PgBoss;
  log: Logger;
  databaseServer?: AppContext["databaseServer"];
  /** The replica's pool (MAILROOM_READ_DATABASE_URL); absent, the event reads run on `database`. */
  readDatabase?: Database;
}): AppContext {
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
    read: (bound) => waitingDeliverEntries(base.database, deliverQueue.name, bound),
    log: base.log,
  });
  const inboundBacklog = createBacklogMonitor({
    max: base.config.inbound.maxBacklog,
    intervalMs: 1_000,
    read: (bound) => waitingJobs(base.database, inboundPostQueue.name, bound),
    log: base.log,
    label: { backlog: "inbound backlog (received messages waiting to be posted)", variable: "MAILROOM_INBOUND_MAX_BACKLOG" },
  });
  // Single messages and batches share one group commit (docs/adr/0102, docs/adr/0126), behind the sending rules' refusals.
  const acceptors = refusingAcceptors({ disk, backlog }, createUnitAcceptor(base.database, base.boss, { accountDailyLimit: base.config.accountDailyLimit }));
  const { readDatabase, ...rest } = base;
  const reads = createReadRouter({
    primary: base.database,
    replica: readDatabase,
    maxLagMs: base.config.readReplica?.maxLagMs ?? 30_000,
    checkIntervalMs: base.config.readReplica?.checkIntervalMs ?? 250,
    onChange: (health) =>
      health.state === "ok" ? base.log.info("read replica: serving the event reads") : base.log.warn({ replica: health }, `read replica: ${describeReplicaHealth(health)}`),
  });
  // Read-your-writes (docs/adr/0036): an account's reads after its acceptance wait for the replica to replay it.
  const noted = <T>(accountId: string, accepted: Promise<T>): Promise<T> => accepted.finally(() => reads.noteWrite(accountId));
  const rollups = createRollupScheduler(base.database);
  const ctx: AppContext = {
    ...rest,
    readDatabase: reads.database,
    reads,
    publicUrl: base.config.publicUrl,
    httpMetrics,
    metrics: createAppMetrics(httpMetrics.registry, base.database, disk, reads.health, backlog, inboundBacklog),
    // POST /email and SMTP submission share this path; the refusals are the sending rules' (lib/domain/sending/acceptance-refusals.ts).
    accept: (acceptance) => noted(acceptance.key.accountId, acceptors.accept(acceptance)),
    acceptBatch: (unit) => {
      const accountId = unit.items[0]?.key.accountId;
      return accountId === undefined ? acceptors.acceptBatch(unit) : noted(accountId, acceptors.acceptBatch(unit));
    },
    outage: createOutageLog(base.log, () => ping(base.database)),
    disk,
    backlog,
    inboundBacklog,
    rollups,
    // Evaluated after bounces and complaints are recorded, at most once per account per interval (docs/adr/0136).
    guardrails: createGuardrailMonitor({
      debounceMs: base.config.guardrails.debounceMs,
      evaluate: (accountId) => evaluateGuardrails(ctx, accountId),
      onError: (err, accountId) => base.log.error({ err, accountId }, "reputation guardrail evaluation failed"),
    }),
    verifiedDomains: createVerifiedDomainCache(),
    domainLookup: lookupOn(base.config.delivery.dnsServers),
    apiKeyAuth: createApiKeyAuthCache(),
    trackingSecret: createTrackingSecretSource(base.database, base.config.tracking.secret),
    dashboardApi: createDashboardApiCache(),
    inbound: {},
  };
  return ctx;
}
