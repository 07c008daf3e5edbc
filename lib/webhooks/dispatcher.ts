import { appMetricsFor } from "../metrics";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { AppContext } from "../context";
import type { Database, Db } from "../storage/database";
import { eventDataSchema } from "../contract/notifications";
import { QUEUE, type NotifyJob } from "../queue/jobs";
import { DestinationLimiter } from "./destination-limiter";
import { WAKE_CHANNEL } from "../domain/notification-outbox";
import { createAgents, postJson, type PostOptions } from "./http-post";
import {
  claimNotifications,
  completeStaleJobs,
  recordAttempts,
  releaseNotifications,
  sweepOverdue,
  type AttemptRecord,
  type ClaimedNotification,
} from "./notification-store";
import { preparedSql } from "../storage/prepared-sql";
import { purgeWebhookHistory } from "./retention";
import { verdictOf } from "./retry-policy";
import { signNotification } from "./signing";
import type { Resolver } from "./ssrf-guard";

/**
 * The `notify` worker of one process: fetches jobs in batches, claims their
 * rows, posts each notification under a per-destination concurrency bound,
 * and writes results back in batches (docs/webhooks.md "Delivery").
 */

export interface DispatcherOptions {
  /** Notifications held at once (running, waiting for their destination, or being written back). */
  maxInFlight: number;
  /** Concurrent POSTs per destination (URL origin). */
  perDestination: number;
  /** Waiting line per destination; past it, work is handed back for later. */
  maxWaitingPerDestination: number;
  /** Work that waited this long for its destination is handed back instead of run. */
  maxWaitMs: number;
  /** Idle poll for due retries when nothing wakes the loop. */
  pollIntervalMs: number;
  /** How often this process purges finished notifications past retention. */
  purgeIntervalMs: number;
  /** Sweeper period and how overdue a pending row must be to get a new job. */
  sweepIntervalMs: number;
  overdueMs: number;
  /** How long a claimed row stays reserved for its worker. */
  leaseMs: number;
  /** Work handed back (its destination's line is full or too slow) is due again after this. */
  deferMs: number;
  resolver?: Resolver;
}

export function defaultDispatcherOptions(timeoutMs: number): DispatcherOptions {
  return {
    maxInFlight: 1000,
    perDestination: 32,
    maxWaitingPerDestination: 600,
    maxWaitMs: 30_000,
    pollIntervalMs: 500,
    sweepIntervalMs: 30_000,
    purgeIntervalMs: 3_600_000,
    overdueMs: 60_000,
    leaseMs: Math.max(120_000, timeoutMs * 6),
    deferMs: 2_000,
  };
}

/** Where the dispatcher's time goes (cumulative since start); for benchmarks and diagnostics. */
export interface DispatcherStats {
  fetches: number;
  fetchedJobs: number;
  fetchMs: number;
  claimMs: number;
  posts: number;
  postMs: number;
  flushes: number;
  flushedRecords: number;
  flushMs: number;
  handedBack: number;
}

interface Pending {
  record: AttemptRecord;
  jobId: string;
}

interface Release {
  notificationId: number;
  jobId: string;
  delayMs: number;
}

export class NotificationDispatcher {
  private running = false;
  private stopping = false;
  /** After stop: late results of abandoned attempts are dropped (their rows were handed back). */
  private closed = false;
  private inFlight = 0;
  private activePosts = 0;
  private wakeUp: (() => void) | undefined;
  private wokenWhileBusy = false;
  private lastListenTry = 0;
  readonly stats: DispatcherStats = {
    fetches: 0,
    fetchedJobs: 0,
    fetchMs: 0,
    claimMs: 0,
    posts: 0,
    postMs: 0,
    flushes: 0,
    flushedRecords: 0,
    flushMs: 0,
    handedBack: 0,
  };
  private listener: pg.Client | undefined;
  private loopDone: Promise<void> = Promise.resolve();
  private sweepTimer: NodeJS.Timeout | undefined;
  private purgeTimer: NodeJS.Timeout | undefined;
  private readonly limiter: DestinationLimiter;
  private readonly agents;
  private readonly postOptions: PostOptions;
  private buffer: Pending[] = [];
  private releases: Release[] = [];
  private activeFlushes = 0;
  private readonly flushWaiters: (() => void)[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  /** Claimed rows whose attempt has not been written back yet (for release on stop). */
  private readonly held = new Map<number, string>();
  /**
   * The dispatcher's own connections, with synchronous_commit off: a claim,
   * an attempt record or a hand-back lost in a database crash only means the
   * notification is attempted again (at least once), so these commits need
   * not wait for the WAL flush. The fan-out (the caller's transaction) keeps
   * full durability.
   */
  private readonly database: Database;

  constructor(
    private readonly ctx: AppContext,
    private readonly options: DispatcherOptions = defaultDispatcherOptions(ctx.config.webhooks.timeoutMs),
  ) {
    const pool = new pg.Pool({
      connectionString: ctx.database.url,
      max: 4,
      application_name: "mailroom-webhooks",
      options: "-c synchronous_commit=off",
      idleTimeoutMillis: 30_000,
    });
    pool.on("error", () => {});
    this.database = { url: ctx.database.url, pool, db: drizzle(pool) as unknown as Db, close: () => pool.end() };
    this.limiter = new DestinationLimiter(options.perDestination, options.maxWaitingPerDestination, options.maxWaitMs);
    this.agents = createAgents(options.perDestination);
    this.postOptions = {
      timeoutMs: ctx.config.webhooks.timeoutMs,
      allowPrivate: ctx.config.webhooks.allowPrivate,
      resolver: options.resolver,
      agents: this.agents,
    };
  }

  async start(): Promise<void> {
    this.running = true;
    await this.listen();
    this.loopDone = this.loop();
    const sweep = () => {
      void sweepOverdue(this.database, this.ctx.boss, this.options.overdueMs)
        .then((n) => {
          if (n > 0) this.ctx.log.info({ count: n }, "webhook sweeper re-queued overdue notifications");
        })
        .catch((err) => this.ctx.log.warn({ err }, "webhook sweeper failed"));
    };
    this.sweepTimer = setInterval(sweep, this.options.sweepIntervalMs);
    this.sweepTimer.unref();
    sweep();
    const purge = () => {
      void purgeWebhookHistory(this.database.pool)
        .then((n) => {
          if (n > 0) this.ctx.log.info({ count: n }, "purged webhook notifications past retention");
        })
        .catch((err) => this.ctx.log.warn({ err }, "purging webhook history failed"));
    };
    // Spread over the period so that several processes do not purge together.
    this.purgeTimer = setTimeout(() => {
      purge();
      this.purgeTimer = setInterval(purge, this.options.purgeIntervalMs);
      this.purgeTimer.unref();
    }, Math.random() * this.options.purgeIntervalMs);
    this.purgeTimer.unref();
  }

  /** Stops fetching, lets running attempts end (up to `graceMs`), gives the rest back, writes everything. */
  async stop(graceMs = 5_000): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.sweepTimer);
    clearTimeout(this.purgeTimer);
    clearInterval(this.purgeTimer);
    this.wake();
    await this.loopDone;
    this.stopping = true;
    this.limiter.drainWaiting();
    const deadline = Date.now() + graceMs;
    while (this.activePosts > 0 && Date.now() < deadline) await sleep(20);
    await this.flush();
    // Attempts still running past the grace period: give their rows back now (at least once).
    for (const [notificationId, jobId] of this.held) this.releases.push({ notificationId, jobId, delayMs: 0 });
    await this.flush();
    await this.listener?.end().catch(() => {});
    this.listener = undefined;
    this.closed = true;
    this.agents.http.destroy();
    this.agents.https.destroy();
    await this.database.close().catch(() => {});
  }

  /** Wakes the loop; a wake that comes while the loop is busy is remembered for its next idle. */
  private wake(): void {
    const w = this.wakeUp;
    this.wakeUp = undefined;
    if (w) w();
    else this.wokenWhileBusy = true;
  }

  private async listen(): Promise<void> {
    this.lastListenTry = Date.now();
    try {
      const client = new pg.Client({ connectionString: this.database.url, application_name: "mailroom-webhooks-listen" });
      client.on("error", () => {
        this.listener = undefined;
        void client.end().catch(() => {});
      });
      client.on("notification", () => this.wake());
      await client.connect();
      await client.query(`LISTEN ${WAKE_CHANNEL}`);
      this.listener = client;
    } catch (err) {
      this.ctx.log.warn({ err }, "webhook wake-up listener unavailable; polling only");
    }
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const room = this.options.maxInFlight - this.inFlight;
      if (room <= 0) {
        await this.idle(this.options.pollIntervalMs);
        continue;
      }
      let jobs: { id: string; data: NotifyJob }[] = [];
      const f0 = performance.now();
      try {
        // pg-boss sorts the whole due backlog per fetch: larger batches amortise that.
        jobs = await this.ctx.boss.fetch<NotifyJob>(QUEUE.notify, { batchSize: Math.min(room, 200), db: preparedSql(this.database.pool) });
      } catch (err) {
        this.ctx.log.warn({ err }, "fetching notify jobs failed");
      }
      this.stats.fetches++;
      this.stats.fetchedJobs += jobs.length;
      this.stats.fetchMs += performance.now() - f0;
      if (jobs.length === 0) {
        // Lost the wake-up connection (database restart): polling goes on; reconnect now and then.
        if (!this.listener && this.running && Date.now() - this.lastListenTry > 30_000) await this.listen();
        await this.idle(this.options.pollIntervalMs);
        continue;
      }
      this.inFlight += jobs.length;
      try {
        await this.dispatch(jobs);
      } catch (err) {
        this.inFlight -= jobs.length;
        this.ctx.log.warn({ err }, "claiming webhook notifications failed; the jobs will expire and run again");
      }
    }
  }

  private idle(ms: number): Promise<void> {
    if (this.wokenWhileBusy) {
      this.wokenWhileBusy = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  private async dispatch(jobs: { id: string; data: NotifyJob }[]): Promise<void> {
    const jobByNotification = new Map<number, string>();
    const stale: string[] = [];
    for (const j of jobs) {
      const id = Number(j.data?.notificationId);
      // Two jobs for one row in one batch: the second has nothing to do.
      if (!Number.isSafeInteger(id) || jobByNotification.has(id)) stale.push(j.id);
      else jobByNotification.set(id, j.id);
    }
    const c0 = performance.now();
    const claimed = await claimNotifications(this.database.pool, [...jobByNotification.keys()], this.options.leaseMs);
    this.stats.claimMs += performance.now() - c0;
    const claimedIds = new Set(claimed.map((c) => c.id));
    for (const [id, job] of jobByNotification) if (!claimedIds.has(id)) stale.push(job);
    if (stale.length > 0) {
      this.inFlight -= stale.length;
      await completeStaleJobs(this.ctx.boss, stale).catch((err) => this.ctx.log.warn({ err }, "completing stale notify jobs failed"));
    }
    for (const n of claimed) {
      const jobId = jobByNotification.get(n.id)!;
      this.held.set(n.id, jobId);
      const giveBack = () => this.handBack(n.id, jobId, this.options.deferMs);
      if (!this.limiter.tryRun(destinationOf(n.url), () => this.attempt(n, jobId), giveBack)) giveBack();
    }
  }

  /** A claimed row goes back to the outbox without an attempt, due again after `delayMs`. */
  private handBack(notificationId: number, jobId: string, delayMs: number): void {
    this.releases.push({ notificationId, jobId, delayMs: this.stopping ? 0 : delayMs });
    this.stats.handedBack++;
    this.scheduleFlush();
  }

  private async attempt(n: ClaimedNotification, jobId: string): Promise<void> {
    if (!this.running) return this.handBack(n.id, jobId, 0);
    this.activePosts++;
    try {
      await this.attemptNow(n, jobId);
    } catch (err) {
      // A defect after the post (a result that cannot be recorded): hand the row back rather than
      // leak its slot; it is due again after deferMs.
      this.ctx.log.error({ err, notificationId: n.id }, "webhook attempt threw; handed back");
      this.handBack(n.id, jobId, this.options.deferMs);
    } finally {
      this.activePosts--;
    }
  }

  private async attemptNow(n: ClaimedNotification, jobId: string): Promise<void> {
    let signed: ReturnType<typeof signNotification>;
    try {
      signed = this.build(n);
    } catch (err) {
      // Not a receiver's failure and no retry would change it: one recorded failed attempt
      // (the webhook's last response and try counter show it), never a crash or a silent loop.
      const kind = err instanceof Error ? err.constructor?.name || err.name : typeof err;
      this.ctx.log.error({ err, notificationId: n.id, webhookId: n.webhookId }, "webhook notification could not be built; recorded as failed");
      appMetricsFor(this.ctx).webhookAttempts.inc({ result: "failed" });
      const now = new Date();
      this.buffer.push({
        jobId,
        record: {
          notificationId: n.id,
          webhookId: n.webhookId,
          attempts: n.attempts + 1,
          status: "failed",
          statusCode: 0,
          body: "",
          durationMs: 0,
          error: `Internal error: the notification could not be built (${kind}); not sent, not retried`,
          startedAt: now,
          endedAt: now,
        },
      });
      this.scheduleFlush();
      return;
    }
    const result = await postJson(n.url, signed.body, signed.headers, this.postOptions);
    this.stats.posts++;
    this.stats.postMs += result.durationMs;
    const attempts = n.attempts + 1;
    const verdict = verdictOf(result.statusCode, attempts, this.ctx.config.webhooks.retryScheduleMs);
    appMetricsFor(this.ctx).webhookAttempts.inc({ result: verdict.kind });
    const record: AttemptRecord = {
      notificationId: n.id,
      webhookId: n.webhookId,
      attempts,
      status: verdict.kind === "delivered" ? "delivered" : verdict.kind === "retry" ? "pending" : "failed",
      retryInMs: verdict.kind === "retry" ? verdict.delayMs : undefined,
      statusCode: result.statusCode,
      body: result.body,
      durationMs: result.durationMs,
      error: result.error ?? (verdict.kind === "refused" ? "406: receiver refused, not retried" : undefined),
      startedAt: result.startedAt,
      endedAt: new Date(),
    };
    this.ctx.log.info(
      { notificationId: n.id, webhookId: n.webhookId, messageId: (n.payload as { MessageID?: string }).MessageID, status: result.statusCode, attempt: attempts, verdict: verdict.kind },
      "webhook attempt",
    );
    this.buffer.push({ record, jobId });
    this.scheduleFlush();
  }

  /** The signed request of a notification; throws when its stored payload is no event data at all. */
  private build(n: ClaimedNotification): ReturnType<typeof signNotification> {
    if (n.payload === null || typeof n.payload !== "object" || Array.isArray(n.payload)) {
      throw new TypeError("the stored payload is not an object");
    }
    const parsed = eventDataSchema.safeParse(n.payload);
    // Canonical member order (jsonb reorders keys); an object that no longer parses goes as stored.
    const eventData = parsed.success ? parsed.data : n.payload;
    return signNotification({ signingKey: n.signingKey, notificationId: n.id, eventData });
  }

  private scheduleFlush(): void {
    if (this.buffer.length + this.releases.length >= 50) {
      void this.flush();
      return;
    }
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, 10);
  }

  /**
   * Writes buffered results and hand-backs, up to MAX_FLUSHES batches at a
   * time (a webhook's record never goes backwards: its update keeps the
   * latest attempt). Resolves when everything buffered so far is written.
   */
  private flush(): Promise<void> {
    if (this.buffer.length + this.releases.length > 0 && this.activeFlushes < MAX_FLUSHES) {
      this.activeFlushes++;
      void this.writeBatch().finally(() => {
        this.activeFlushes--;
        if (this.buffer.length + this.releases.length > 0) void this.flush();
        else if (this.activeFlushes === 0) for (const w of this.flushWaiters.splice(0)) w();
      });
    }
    if (this.activeFlushes === 0) return Promise.resolve();
    return new Promise((resolve) => this.flushWaiters.push(resolve));
  }

  private async writeBatch(): Promise<void> {
    if (this.closed) {
      this.buffer = [];
      this.releases = [];
      return;
    }
    const batch = this.buffer.splice(0, 200);
    const releases = this.releases.splice(0);
    const t0 = performance.now();
    if (batch.length > 0) {
      try {
        await recordAttempts(
          this.database,
          this.ctx.boss,
          batch.map((p) => p.record),
          batch.map((p) => p.jobId),
        );
      } catch (err) {
        // The rows stay claimed until their lease ends; their jobs expire and run again.
        this.ctx.log.error({ err, count: batch.length }, "recording webhook attempts failed");
      }
    }
    for (const [delayMs, group] of groupBy(releases, (r) => r.delayMs)) {
      try {
        await releaseNotifications(
          this.database,
          this.ctx.boss,
          group.map((r) => r.notificationId),
          group.map((r) => r.jobId),
          delayMs,
        );
      } catch (err) {
        this.ctx.log.warn({ err, count: group.length }, "handing webhook notifications back failed; their claims expire");
      }
    }
    this.stats.flushes++;
    this.stats.flushedRecords += batch.length;
    this.stats.flushMs += performance.now() - t0;
    for (const p of batch) this.held.delete(p.record.notificationId);
    for (const r of releases) this.held.delete(r.notificationId);
    this.inFlight -= batch.length + releases.length;
    if (batch.length + releases.length > 0) this.wake();
  }
}

/** Result batches written at once (the dispatcher's pool has 4 connections). */
const MAX_FLUSHES = 2;

function groupBy<T, K>(items: T[], key: (t: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item]);
  return out;
}

function destinationOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
