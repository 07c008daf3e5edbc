import type { AppContext } from "../context";
import type { Database } from "../storage/database";
import { createGroupCommit } from "../storage/group-commit";
import type { NotifyJob } from "../jobs/notify";
import { DestinationLimiter, destinationOf } from "./destination-limiter";
import { attemptNotification } from "./attempt";
import { noteEndpointHealth, tellAdmins } from "./endpoint-health";
import { defaultDispatcherOptions, type DispatcherOptions, type DispatcherStats } from "./dispatcher-options";
import { createAgents, type PostOptions } from "./http-post";
import {
  claimNotifications,
  completeStaleJobs,
  recordAttempts,
  releaseNotifications,
  type AttemptRecord,
  type ClaimedNotification,
} from "./notification-store";

/**
 * The `notify` job handler: claim → limit → attempt → record
 * (docs/webhooks.md "Delivery"). The job runner fetches the jobs and calls
 * `handle` for each; claims, results and hand-backs of the jobs handled at
 * the same time are written together (group commit), and a job is settled
 * in the transaction that records its outcome.
 */

export { defaultDispatcherOptions, type DispatcherOptions, type DispatcherStats };

interface Held {
  jobId: string;
  /** Resolves the job's handler: its outcome is written (or abandoned at stop). */
  settle: () => void;
}

/** What a handled job leaves to write: its attempt, or its row handed back without one. */
type Outcome =
  | { kind: "record"; record: AttemptRecord; jobId: string }
  | { kind: "release"; notificationId: number; jobId: string; delayMs: number };

/** Outcome batches written at once (the dispatcher's pool has 4 connections: the runner's fetches, claims and two writers). */
const MAX_WRITES = 2;

export class NotificationDispatcher {
  private stopping = false;
  /** After stop: late results of abandoned attempts are dropped (their rows were handed back). */
  private closed = false;
  private activePosts = 0;
  readonly stats: DispatcherStats = { claims: 0, claimedJobs: 0, claimMs: 0, posts: 0, postMs: 0, flushes: 0, flushedRecords: 0, flushMs: 0, handedBack: 0 };
  private readonly limiter: DestinationLimiter;
  private readonly agents;
  private readonly postOptions: PostOptions;
  /** Claimed rows whose outcome has not been written yet (for release on stop). */
  private readonly held = new Map<number, Held>();
  private readonly claim: (item: { notificationId: number; jobId: string }) => Promise<ClaimedNotification | null>;
  private readonly completeStale: (jobId: string) => Promise<void>;
  private readonly write: (item: Outcome) => Promise<void>;

  /**
   * `database`: the dispatcher's own connections, with synchronous_commit off
   * (lib/webhooks/start.ts): a claim, an attempt record or a hand-back lost
   * in a database crash only means the notification is attempted again.
   */
  constructor(
    private readonly ctx: AppContext,
    private readonly database: Database,
    private readonly options: DispatcherOptions = defaultDispatcherOptions(ctx.config.webhooks.timeoutMs),
  ) {
    this.limiter = new DestinationLimiter(options.perDestination, options.maxWaitingPerDestination, options.maxWaitMs);
    this.agents = createAgents(options.perDestination);
    this.postOptions = {
      timeoutMs: ctx.config.webhooks.timeoutMs,
      allowPrivate: ctx.config.webhooks.allowPrivate,
      resolver: options.resolver,
      agents: this.agents,
    };
    this.claim = createGroupCommit(
      async (items: { notificationId: number; jobId: string }[]) => {
        const c0 = performance.now();
        const claimed = await claimNotifications(database, [...new Set(items.map((i) => i.notificationId))], options.leaseMs);
        this.stats.claims++;
        this.stats.claimedJobs += items.length;
        this.stats.claimMs += performance.now() - c0;
        const byId = new Map(claimed.map((c) => [c.id, c]));
        // Two jobs for one row in one batch: the second has nothing to do.
        return items.map((i) => {
          const c = byId.get(i.notificationId) ?? null;
          byId.delete(i.notificationId);
          return c;
        });
      },
      { maxBatch: 200, maxInFlight: 1 },
    );
    this.completeStale = createGroupCommit(
      async (jobIds: string[]) => {
        await completeStaleJobs(ctx.boss, jobIds);
        return jobIds.map(() => undefined);
      },
      { maxBatch: 500, maxInFlight: 1 },
    );
    // Results and hand-backs share the writers (at most MAX_WRITES at a time): with the claims and the
    // runner's fetches they never need more connections than the pool has.
    this.write = createGroupCommit(
      async (items: Outcome[]) => {
        if (this.closed) return items.map(() => undefined);
        const t0 = performance.now();
        const records = items.filter((i) => i.kind === "record");
        const releases = items.filter((i) => i.kind === "release");
        if (records.length > 0) {
          await recordAttempts(
            database,
            ctx.boss,
            records.map((p) => p.record),
            records.map((p) => p.jobId),
          );
          await this.noteHealth(records.map((p) => p.record));
        }
        for (const [delayMs, group] of groupBy(releases, (r) => r.delayMs)) {
          await releaseNotifications(
            database,
            ctx.boss,
            group.map((r) => r.notificationId),
            group.map((r) => r.jobId),
            delayMs,
          );
        }
        this.stats.flushes++;
        this.stats.flushedRecords += records.length;
        this.stats.flushMs += performance.now() - t0;
        return items.map(() => undefined);
      },
      { maxBatch: 250, maxInFlight: MAX_WRITES },
    );
  }

  /** The `notify` job handler: resolves once the job's outcome is written (the job is settled with it). */
  async handle(job: NotifyJob, meta: { id: string }): Promise<void> {
    if (this.stopping) throw new Error("the dispatcher is stopping");
    const n = await this.claim({ notificationId: job.notificationId, jobId: meta.id });
    if (!n) {
      // Row done, cancelled, deleted, not due, or claimed by another job.
      await this.completeStale(meta.id);
      return;
    }
    await new Promise<void>((settle) => {
      this.held.set(n.id, { jobId: meta.id, settle });
      const giveBack = () => this.handBack(n.id, this.options.deferMs);
      if (!this.limiter.tryRun(destinationOf(n.url), () => this.attempt(n), giveBack)) giveBack();
    });
  }

  /** Lets running attempts end (up to `graceMs`), gives the rest back, writes everything. Call once the runner stopped fetching. */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.limiter.drainWaiting();
    const deadline = Date.now() + graceMs;
    while (this.activePosts > 0 && Date.now() < deadline) await sleep(20);
    // Attempts still running past the grace period: give their rows back now (at least once).
    await Promise.all([...this.held.keys()].map((id) => this.handBack(id, 0)));
    this.closed = true;
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** Disables the webhooks that keep failing (endpoint-health.ts); their admins are told without holding the writer. */
  private async noteHealth(records: AttemptRecord[]): Promise<void> {
    try {
      const disabled = await noteEndpointHealth(this.database, records, this.ctx.config.webhooks.disableAfterMs);
      if (disabled.length > 0) void tellAdmins(this.ctx, disabled);
    } catch (err) {
      // The attempts are recorded; the next batch of this endpoint decides again.
      if (!this.ctx.outage.report("webhooks", err)) this.ctx.log.error({ err }, "updating webhook endpoint health failed");
    }
  }

  /** A claimed row goes back to the outbox without an attempt, due again after `delayMs`; its job is settled with it. */
  private async handBack(notificationId: number, delayMs: number): Promise<void> {
    const held = this.held.get(notificationId);
    if (!held) return;
    this.held.delete(notificationId);
    this.stats.handedBack++;
    try {
      await this.write({ kind: "release", notificationId, jobId: held.jobId, delayMs: this.stopping ? 0 : delayMs });
    } catch (err) {
      // A database outage is logged once per outage (docs/adr/0008).
      if (!this.ctx.outage.report("webhooks", err, { notificationId })) this.ctx.log.warn({ err, notificationId }, "handing a webhook notification back failed; its claim expires");
    } finally {
      held.settle();
    }
  }

  private async attempt(n: ClaimedNotification): Promise<void> {
    if (this.stopping) return this.handBack(n.id, 0);
    this.activePosts++;
    let record: AttemptRecord;
    try {
      record = await attemptNotification(this.ctx, n, this.postOptions, (ms) => {
        this.stats.posts++;
        this.stats.postMs += ms;
      });
    } catch (err) {
      // A defect after the post: hand the row back rather than leak its slot; it is due again after deferMs.
      // A database outage is logged once per outage (docs/adr/0008).
      if (!this.ctx.outage.report("webhooks", err, { notificationId: n.id })) this.ctx.log.error({ err, notificationId: n.id }, "webhook attempt threw; handed back");
      return this.handBack(n.id, this.options.deferMs);
    } finally {
      this.activePosts--;
    }
    // The destination's slot frees now; the result is written with others meanwhile.
    void this.writeResult(record);
  }

  private async writeResult(record: AttemptRecord): Promise<void> {
    const held = this.held.get(record.notificationId);
    if (!held) return; // handed back at stop while it ran: the late result is dropped
    this.held.delete(record.notificationId);
    try {
      await this.write({ kind: "record", record, jobId: held.jobId });
    } catch (err) {
      // The row stays claimed until its lease ends; its job expires and runs again.
      // A database outage is logged once per outage (docs/adr/0008); a defect every time.
      if (!this.ctx.outage.report("webhooks", err, { notificationId: record.notificationId })) {
        this.ctx.log.error({ err, notificationId: record.notificationId }, "recording a webhook attempt failed");
      }
    } finally {
      held.settle();
    }
  }
}

function groupBy<T, K>(items: T[], key: (t: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item]);
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
