/**
 * The arithmetic of the replica's lag and of read-your-writes, on sampled
 * WAL positions (lib/storage/read-replica.ts, docs/adr/0035, docs/adr/0036).
 */

/** The primary's pg_current_wal_lsn() and when the query asking for it was sent (ms). */
export interface LsnSample {
  at: number;
  lsn: bigint;
}

export type ReplicaHealth =
  /** No MAILROOM_READ_DATABASE_URL: every read runs on the primary. */
  | { state: "none" }
  | { state: "ok"; lagMs: number }
  /** Further behind than MAILROOM_READ_MAX_LAG: reads run on the primary until it catches up. */
  | { state: "behind"; lagMs: number }
  /** The server answers but is not in recovery (promoted, or not a replica at all): never read. */
  | { state: "not-a-standby" }
  | { state: "unreachable"; error: string };

/** "16/B374D848" → a comparable number. */
export function parseLsn(text: string): bigint {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (!m) throw new Error(`not a WAL position: ${text}`);
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

/** How long ago the primary had written something the replica has not replayed yet (0: nothing). */
export function lagOf(samples: readonly LsnSample[], replayLsn: bigint, now: number): number {
  const oldestMissing = samples.find((s) => s.lsn > replayLsn);
  return oldestMissing ? Math.max(0, now - oldestMissing.at) : 0;
}

export function replicaVerdict(input: { standby: boolean; replayLsn: bigint | undefined; samples: readonly LsnSample[]; now: number; maxLagMs: number }): ReplicaHealth {
  if (!input.standby) return { state: "not-a-standby" };
  // A standby that has replayed nothing yet is as far behind as the samples reach.
  const lagMs = input.replayLsn === undefined ? input.now - (input.samples[0]?.at ?? input.now) : lagOf(input.samples, input.replayLsn, input.now);
  return input.replayLsn !== undefined && lagMs <= input.maxLagMs ? { state: "ok", lagMs } : { state: "behind", lagMs };
}

/**
 * Whether the replica has replayed a write whose commit returned at
 * `writtenAt`: the first primary position sampled after that moment is at
 * or past the commit's record (a synchronous commit has flushed it before
 * returning), so once the replica has replayed that position it shows the
 * write. No such sample yet: not known to be replayed.
 */
export function writeIsReplayed(writtenAt: number, samples: readonly LsnSample[], replayLsn: bigint | undefined): boolean {
  if (replayLsn === undefined) return false;
  const after = samples.find((s) => s.at > writtenAt);
  return after !== undefined && after.lsn <= replayLsn;
}

/** The replica's state in words, for /readyz (docs/OPERATIONS.md). */
export function describeReplicaHealth(health: ReplicaHealth): string {
  switch (health.state) {
    case "none":
      return "none configured";
    case "ok":
      return "ok";
    case "behind":
      return `behind by ${Math.round(health.lagMs / 1000)}s; event reads on the primary until it catches up`;
    case "not-a-standby":
      return "not in recovery (promoted or not a replica); event reads on the primary";
    case "unreachable":
      return `unreachable: ${health.error}; event reads on the primary`;
  }
}
