import { Counter, Gauge, type Registry } from "prom-client";
import type { Queryable } from "./storage/database";
import type { DiskMonitor, DiskStatus } from "./storage/disk-space";
import { selectHoldsInForce } from "./storage/destination-hold-rows";
import { reclaimedJobsByQueue, waitingJobsByQueue } from "./storage/job-rows";
import type { BacklogMonitor } from "./domain/sending/delivery-backlog";
import type { ReplicaHealth } from "./storage/replica-lag";

/**
 * What /metrics reports beyond HTTP (docs/OPERATIONS.md): deliveries by outcome and
 * webhook attempts by result, counted by the workers of this process, and
 * the queue's depth and oldest job age, read from PostgreSQL at scrape time
 * (so they are the whole installation's, whichever process is scraped).
 * One set per context, on the registry of the HTTP metrics, built by
 * openProcessContext and held on AppContext (`ctx.metrics`).
 */
export interface AppMetrics {
  deliveries: Counter<"outcome">;
  webhookAttempts: Counter<"result">;
}

export function createAppMetrics(
  registry: Registry,
  database: Queryable,
  disk?: Pick<DiskMonitor, "status">,
  /** The read replica's latest check (docs/adr/0037); absent or `none` without one. */
  replica?: () => ReplicaHealth,
  backlog?: Pick<BacklogMonitor, "depth">,
  inboundBacklog?: Pick<BacklogMonitor, "depth">,
): AppMetrics {
  const deliveries = new Counter({
    name: "mailroom_deliveries_total",
    help: "Delivery attempts by outcome (delivered, deferred, failed, rejected)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: "mailroom_webhook_attempts_total",
    help: "Webhook notification attempts by result (delivered, retry, refused, exhausted)",
    labelNames: ["result"] as const,
    registers: [registry],
  });
  let queueRows: { name: string; depth: number; age: number }[] = [];
  let reclaimRows: { queue: string; jobs: number }[] = [];
  // prom-client collects all metrics of a scrape concurrently: both gauges
  // share one query per scrape (results are reused for a second).
  let reading: Promise<void> | undefined;
  let readAt = 0;
  const fresh = () => {
    if (!reading || Date.now() - readAt > 1000) {
      readAt = Date.now();
      reading = readQueues();
    }
    return reading;
  };
  const readQueues = async () => {
    try {
      queueRows = await waitingJobsByQueue(database);
      reclaimRows = await reclaimedJobsByQueue(database);
    } catch {
      queueRows = []; // the database is away: report nothing rather than fail the scrape
      reclaimRows = [];
    }
  };
  new Gauge({
    name: "mailroom_queue_depth",
    help: "Jobs waiting in the queue (created or awaiting retry), by queue",
    labelNames: ["queue"] as const,
    registers: [registry],
    async collect() {
      await fresh();
      this.reset();
      for (const r of queueRows) this.set({ queue: r.name }, r.depth);
    },
  });
  new Gauge({
    name: "mailroom_queue_oldest_age_seconds",
    help: "Age of the oldest waiting job, by queue",
    labelNames: ["queue"] as const,
    registers: [registry],
    async collect() {
      await fresh();
      this.reset();
      for (const r of queueRows) this.set({ queue: r.name }, r.age);
    },
  });
  new Counter({
    name: "mailroom_queue_jobs_reclaimed_total",
    help: "Jobs returned to the queue from dead workers (lost lease), by queue: each may have run twice (at-least-once)",
    labelNames: ["queue"] as const,
    registers: [registry],
    async collect() {
      await fresh();
      this.reset();
      for (const r of reclaimRows) this.inc({ queue: r.queue }, r.jobs);
    },
  });
  // Holds on destinations (docs/adr/0204), operators' and automatic ones: read at scrape time, a small table.
  new Gauge({
    name: "mailroom_destination_holds",
    help: "Holds in force on delivery destinations: 1 per destination, source (operator, automatic) and scope (all accounts, one account)",
    labelNames: ["destination", "source", "scope"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        for (const h of await selectHoldsInForce(database)) this.inc({ destination: h.key, source: h.source, scope: h.accountId ? "account" : "all" });
      } catch {
        // the database is away: report nothing rather than fail the scrape
      }
    },
  });
  // The data directory's free space: the monitor's latest sample (taken on its interval, never per scrape); absent when nothing is watched.
  if (disk) {
    const level = { ok: 0, low: 1, critical: 2 } as const;
    const diskGauge = (name: string, help: string, read: (s: DiskStatus) => number) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          const s = disk.status();
          this.reset();
          if (s) this.set(read(s));
        },
      });
    diskGauge("mailroom_data_dir_free_bytes", "Free space of the data directory (statfs bavail × bsize), sampled every MAILROOM_DISK_CHECK_INTERVAL", (s) => s.freeBytes);
    diskGauge("mailroom_data_dir_size_bytes", "Size of the data directory's file system", (s) => s.totalBytes);
    diskGauge("mailroom_data_dir_min_free_bytes", "MAILROOM_DISK_MIN_FREE in bytes: below it new messages are refused with 503", (s) => s.minFreeBytes);
    diskGauge("mailroom_data_dir_space_level", "0 ok, 1 below MAILROOM_DISK_WARN_FREE, 2 below MAILROOM_DISK_MIN_FREE (acceptance refused)", (s) => level[s.level]);
  }
  if (replica && replica().state !== "none") {
    new Gauge({
      name: "mailroom_read_replica_serving",
      help: "1 while the read replica (MAILROOM_READ_DATABASE_URL) serves the event reads, 0 while they run on the primary (down, behind or not in recovery)",
      registers: [registry],
      collect() {
        this.set(replica().state === "ok" ? 1 : 0);
      },
    });
    new Gauge({
      name: "mailroom_read_replica_lag_seconds",
      help: "Age of the oldest change on the primary the read replica has not replayed, at its latest check; absent while it is unreachable",
      registers: [registry],
      collect() {
        const h = replica();
        this.reset();
        if (h.state === "ok" || h.state === "behind") this.set(h.lagMs / 1000);
      },
    });
  }
  // The backlogs' latest readings (docs/adr/0322, docs/adr/0049: read on their interval, never per scrape); absent when not read.
  if (backlog) {
    backlogGauge(registry, backlog, "mailroom_delivery_backlog_messages", "Messages waiting for a delivery worker, counted up to MAILROOM_MAX_BACKLOG: at that value new mail is refused (429, SMTP 451)");
  }
  if (inboundBacklog) {
    backlogGauge(
      registry,
      inboundBacklog,
      "mailroom_inbound_backlog_messages",
      "Received messages waiting to be posted to their routes, counted up to MAILROOM_INBOUND_MAX_BACKLOG: at that value mail for routes is answered 451",
    );
  }
  return { deliveries, webhookAttempts };
}

function backlogGauge(registry: Registry, monitor: Pick<BacklogMonitor, "depth">, name: string, help: string): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      const depth = monitor.depth();
      this.reset();
      if (depth !== undefined) this.set(depth);
    },
  });
}
