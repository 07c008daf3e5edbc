import pg from "pg";
import type { Database } from "./database";
import { parseLsn, replicaVerdict, writeIsReplayed, type LsnSample, type ReplicaHealth } from "./replica-lag";
import { withTimeout } from "../with-timeout";

/**
 * The event reads' choice between a streaming replica and the primary
 * (docs/adr/0035). A sampler asks both servers, every checkIntervalMs, for
 * their WAL positions: the primary's pg_current_wal_lsn() (kept as a short
 * time series) and the replica's pg_last_wal_replay_lsn(). From those,
 * without any query on the read or write path:
 *   - the replica's lag: the age of the oldest primary position it has not
 *     replayed; past maxLagMs (or unreachable, or no longer a standby) the
 *     reads run on the primary until it catches up;
 *   - read-your-writes: an account's writes (acceptances) are noted with the
 *     time their commit returned; the first primary position sampled after
 *     that time covers the commit, and until the replica has replayed it
 *     that account's reads run on the primary (docs/adr/0036).
 */

export interface ReadRouterOptions {
  primary: Database;
  replica?: Database;
  maxLagMs: number;
  checkIntervalMs: number;
  /** Called when the replica's state changes (logged once per change). */
  onChange?: (health: ReplicaHealth) => void;
  now?: () => number;
}

export interface ReadRouter {
  /** The replica's pool when one is configured, else the primary's. */
  readonly database: Database;
  /** An account's write has committed: its reads wait for the replica to replay it. */
  noteWrite(accountId: string): void;
  /**
   * Runs `read` on the replica when it may serve `accountId`, else on the
   * primary; a read the replica fails (it went away, a recovery conflict) is
   * run again on the primary, as is one whose result `retryOnPrimary` rejects.
   */
  run<T>(accountId: string, read: (database: Database) => Promise<T>, options?: { retryOnPrimary?: (result: T) => boolean }): Promise<T>;
  health(): ReplicaHealth;
  /** Samples once now (tests, and the start). */
  check(): Promise<ReplicaHealth>;
  start(): void;
  stop(): void;
}

/** SQLSTATEs after which the replica is left until the sampler sees it well: connection and shutdown classes, a recovery conflict. */
const REPLICA_GONE = /^(08|57P0|40001)/;

export function createReadRouter(options: ReadRouterOptions): ReadRouter {
  const { primary, replica, maxLagMs, checkIntervalMs } = options;
  const now = options.now ?? Date.now;
  // The primary's positions of the last 2 × maxLagMs (at least 20 samples): enough to tell a lag up to maxLagMs.
  const keepMs = Math.max(2 * maxLagMs, 20 * checkIntervalMs);
  const samples: LsnSample[] = [];
  /** Per account, when its last noted write's commit returned (ms). */
  const writes = new Map<string, number>();
  let replayLsn: bigint | undefined;
  let health: ReplicaHealth = replica ? { state: "unreachable", error: "not checked yet" } : { state: "none" };
  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<ReplicaHealth> | undefined;

  let checked = false;
  const setHealth = (next: ReplicaHealth) => {
    // The first verdict is told too: a replica unreachable from the start is logged.
    const changed = !checked || next.state !== health.state;
    checked = true;
    health = next;
    if (changed) options.onChange?.(next);
  };

  async function sample(): Promise<ReplicaHealth> {
    if (!replica) return health;
    const at = now();
    const timeout = Math.max(1000, 4 * checkIntervalMs);
    try {
      const [p, r] = await withTimeout(
        Promise.all([
          primary.pool.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn"),
          replica.pool.query<{ standby: boolean; lsn: string | null }>("SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS lsn"),
        ]),
        timeout,
      );
      samples.push({ at, lsn: parseLsn(p.rows[0]!.lsn) });
      while (samples.length > 1 && samples[0]!.at < at - keepMs) samples.shift();
      const row = r.rows[0]!;
      replayLsn = row.standby && row.lsn ? parseLsn(row.lsn) : undefined;
      setHealth(replicaVerdict({ standby: row.standby, replayLsn, samples, now: now(), maxLagMs }));
      for (const [accountId, writtenAt] of writes) if (writeIsReplayed(writtenAt, samples, replayLsn)) writes.delete(accountId);
    } catch (err) {
      replayLsn = undefined;
      setHealth({ state: "unreachable", error: (err as Error).message });
    }
    return health;
  }

  function check(): Promise<ReplicaHealth> {
    checking ??= sample().finally(() => (checking = undefined));
    return checking;
  }

  /** The replica, when it may serve this account now. */
  function replicaFor(accountId: string): Database | undefined {
    if (!replica || health.state !== "ok") return undefined;
    const writtenAt = writes.get(accountId);
    if (writtenAt === undefined) return replica;
    if (!writeIsReplayed(writtenAt, samples, replayLsn)) return undefined;
    writes.delete(accountId);
    return replica;
  }

  return {
    database: replica ?? primary,
    noteWrite(accountId) {
      if (replica) writes.set(accountId, now());
    },
    async run(accountId, read, runOptions) {
      const chosen = replicaFor(accountId);
      if (!chosen) return read(primary);
      let result;
      try {
        result = await read(chosen);
      } catch (err) {
        // The query's own error (not the replica's state): the primary would give it too.
        if (err instanceof pg.DatabaseError && !REPLICA_GONE.test(err.code ?? "")) throw err;
        setHealth({ state: "unreachable", error: (err as Error).message });
        return read(primary);
      }
      return runOptions?.retryOnPrimary?.(result) ? read(primary) : result;
    },
    health: () => health,
    check,
    start() {
      if (!replica || timer) return;
      void check();
      timer = setInterval(() => void check(), checkIntervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}

