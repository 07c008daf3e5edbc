import { describe, expect, it } from "vitest";
import { describeReplicaHealth, lagOf, parseLsn, replicaVerdict, writeIsReplayed } from "./replica-lag";

describe("WAL positions", () => {
  it("orders positions across the 4 GiB boundary of the low word", () => {
    expect(parseLsn("0/3000060")).toBe(0x3000060n);
    expect(parseLsn("1/0") > parseLsn("0/FFFFFFFF")).toBe(true);
    expect(parseLsn("16/B374D848")).toBe((0x16n << 32n) | 0xb374d848n);
    expect(() => parseLsn("nonsense")).toThrow();
  });
});

describe("the replica's lag", () => {
  const samples = [
    { at: 1000, lsn: 100n },
    { at: 2000, lsn: 200n },
    { at: 3000, lsn: 300n },
  ];

  it("is the age of the oldest primary position not replayed", () => {
    expect(lagOf(samples, 300n, 3500)).toBe(0);
    expect(lagOf(samples, 250n, 3500)).toBe(500);
    expect(lagOf(samples, 150n, 3500)).toBe(1500);
  });

  it("is ok within the limit, behind past it, never read when not a standby", () => {
    expect(replicaVerdict({ standby: true, replayLsn: 150n, samples, now: 3500, maxLagMs: 2000 })).toEqual({ state: "ok", lagMs: 1500 });
    expect(replicaVerdict({ standby: true, replayLsn: 50n, samples, now: 3500, maxLagMs: 2000 })).toEqual({ state: "behind", lagMs: 2500 });
    expect(replicaVerdict({ standby: true, replayLsn: undefined, samples, now: 3500, maxLagMs: 9000 }).state).toBe("behind");
    expect(replicaVerdict({ standby: false, replayLsn: 300n, samples, now: 3500, maxLagMs: 2000 })).toEqual({ state: "not-a-standby" });
    expect(describeReplicaHealth({ state: "behind", lagMs: 42_400 })).toBe("behind by 42s; event reads on the primary until it catches up");
  });

  it("counts a write as replayed only once the replica has the first position sampled after its commit", () => {
    // Committed at 1500: the sample sent at 2000 (lsn 200) covers it; the one sent at 1000 does not.
    expect(writeIsReplayed(1500, samples, 150n)).toBe(false);
    expect(writeIsReplayed(1500, samples, 200n)).toBe(true);
    // A sample sent in the same millisecond may have been sent before the commit returned.
    expect(writeIsReplayed(2000, samples, 250n)).toBe(false);
    // No sample after the write yet: not known.
    expect(writeIsReplayed(3000, samples, 999n)).toBe(false);
    expect(writeIsReplayed(1500, samples, undefined)).toBe(false);
  });
});
