import type PgBoss from "pg-boss";
import type { Counter, Registry } from "prom-client";
import type { Config } from "./config";
import type { ApiKeyAuthCache } from "./domain/accounts/api-keys";
import type { ExpiringMap } from "./domain/shared/expiring-map";
import type { DnsLookup } from "./domain/accounts/domain-health/dns-answers";
import type { Acceptor, UnitAcceptor, VerifiedDomainCache } from "./domain/sending/send-email";
import type { RollupScheduler } from "./domain/events/event-counts";
import type { GuardrailMonitor } from "./domain/sending/guardrails/guardrail-monitor";
import type { Logger } from "./logger";
import type { Database } from "./storage/database";
import type { ReadRouter } from "./storage/read-replica";
import type { DiskMonitor } from "./storage/disk-space";
import type { OutageLog } from "./storage/outage-log";

/**
 * What a running process has: configuration, the database, the queue, a
 * logger, and the objects that must exist once per process (metrics, the
 * acceptance group commit). Built by buildAppContext (lib/process-context.ts)
 * and passed down; nothing reads globals or module-level maps.
 *
 * It names no layer above it (docs/adr/0050): only config, storage and the
 * domain, which never import it. What it holds of the layers above is stated
 * here as the narrow shape their users need (HttpMetrics, AppMetrics, the
 * backlog monitors, the dashboard's cache), which the upper layer's own type
 * satisfies; the delivery worker's group commits live with it (lib/delivery/start.ts).
 */
export interface AppContext {
  config: Config;
  database: Database;
  /**
   * The embedded PostgreSQL server when this process started it (and
   * restarts it when it exits, lib/storage/postmaster.ts): /healthz is
   * unhealthy while it is down. Absent with DATABASE_URL or a server
   * another process started.
   */
  databaseServer?: { isUp(): boolean };
  /**
   * The pool of the event reads' streaming replica (MAILROOM_READ_DATABASE_URL),
   * or `database` itself when none is configured. Reads go through `reads`,
   * which picks this or the primary per read (docs/adr/0035).
   */
  readDatabase: Database;
  /** Which server an event read runs on: the replica's lag and the accounts' recent writes (docs/adr/0035, docs/adr/0036). */
  reads: ReadRouter;
  boss: PgBoss;
  log: Logger;
  /**
   * Base of the links this process writes (tracking, unsubscribe):
   * config.publicUrl, except that with PORT=0 and no MAILROOM_PUBLIC_URL
   * server.ts sets it to the bound port's URL once the port is bound,
   * before any worker starts. The config itself is never changed.
   */
  publicUrl: string;
  /** The registry /metrics serves, and the HTTP request metrics on it (createHttpMetrics, lib/http/metrics.ts). */
  httpMetrics: { registry: Registry; observe(method: string, route: string, status: number, seconds: number): void };
  /** Delivery, webhook and queue metrics, on httpMetrics.registry (createAppMetrics, lib/metrics.ts). */
  metrics: { deliveries: Counter<"outcome">; webhookAttempts: Counter<"result"> };
  /** POST /email's durable acceptance, group-committed per process (docs/adr/0102). */
  accept: Acceptor;
  /** POST /email/batch's: a batch's messages in one transaction of the same group commit (docs/adr/0126). */
  acceptBatch: UnitAcceptor;
  /** The event reads' background roll-ups of hour summaries (one per account at a time). */
  rollups: RollupScheduler;
  /** The reputation guardrails' evaluations after bounces and complaints (docs/adr/0136). */
  guardrails: GuardrailMonitor;
  /** The secret of tracking tokens and VERP addresses (configured, else kept in the database), read once. */
  trackingSecret: () => Promise<string>;
  /** API keys authenticated in the last seconds (the API, SMTP submission, the dashboard). */
  apiKeyAuth: ApiKeyAuthCache;
  /** Sender domains seen verified in the last seconds (POST /email and SMTP submission). */
  verifiedDomains: VerifiedDomainCache;
  /** The sender-domain health checks' DNS: MAILROOM_DNS_SERVERS, else the system's (docs/adr/0134). */
  domainLookup: DnsLookup;
  /** The dashboard's API keys per account and the configured key's account (lib/dashboard/api.ts; createDashboardApiCache). */
  dashboardApi: { keys: ExpiringMap<string>; configuredKeyAccount?: Promise<string | undefined> };
  /**
   * The dashboard's secret (sessions, sealed dashboard keys): AUTH_SECRET or
   * the data directory's generated one, set by server.ts before the
   * dashboard serves (lib/domain/staff/dashboard-auth-secret.ts, docs/adr/0508);
   * undefined in a process without the dashboard.
   */
  dashboardSecret?: string;
  /**
   * Database outages (unreachable, disk full) logged once per outage and
   * component at error, counted after that and summed up when the database
   * answers again (docs/adr/0008).
   */
  outage: OutageLog;
  /**
   * Free space of the data directory, sampled on an interval once started
   * (server.ts starts it; worker processes leave it idle): gauges, the
   * dashboard's banner, acceptance refused below MAILROOM_DISK_MIN_FREE
   * (docs/adr/0007).
   */
  disk: DiskMonitor;
  /**
   * Messages waiting for a delivery worker, sampled on an interval once started
   * (server.ts starts it): past MAILROOM_MAX_BACKLOG acceptance is refused with
   * 429 / 451 until the workers catch up (docs/contract.md §18, docs/adr/0322).
   */
  backlog: SampledBacklog;
  /**
   * Received messages waiting to be posted to their routes, sampled on an
   * interval once started (server.ts starts it, beside the inbound SMTP
   * server): past MAILROOM_INBOUND_MAX_BACKLOG mail for routes is answered
   * 451 until the posts catch up (docs/contract.md §13.3, docs/adr/0049).
   */
  inboundBacklog: SampledBacklog;
  /** Where this process's inbound SMTP server listens, once started (lib/inbound/inbound-server.ts). */
  inbound: { address?: { host: string; port: number } };
}

/** What the process's users need of a backlog monitor (createBacklogMonitor, lib/domain/sending/delivery-backlog.ts). */
export interface SampledBacklog {
  /** Whether the latest sample is at or past the maximum. */
  full(): boolean;
  /** Throws BacklogFullError when full(). */
  assertAccepting(): void;
  /** Samples now; start() samples on the interval. */
  sample(): Promise<number | undefined>;
  start(): void;
  stop(): void;
}
