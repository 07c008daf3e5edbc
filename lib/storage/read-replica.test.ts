import pg from "pg";
import { describe, expect, it } from "vitest";
import type { Database } from "./database";
import { createReadRouter } from "./read-replica";

/** A pool that answers the sampler's WAL queries from `wal` and fails reads when `down`. */
function fakeServer(name: string, wal: { lsn: string; standby?: boolean; down?: boolean }): Database {
  const query = async (sql: string) => {
    if (wal.down) throw Object.assign(new Error(`${name} is down`), { code: "ECONNREFUSED" });
    if (sql.includes("pg_current_wal_lsn")) return { rows: [{ lsn: wal.lsn }] };
    if (sql.includes("pg_is_in_recovery")) return { rows: [{ standby: wal.standby ?? true, lsn: wal.lsn }] };
    return { rows: [{ server: name }] };
  };
  return { url: name, pool: { query } as unknown as pg.Pool, db: undefined as never, query: query as never, close: async () => {} };
}

describe("the read router", () => {
  function setup() {
    let clock = 1000;
    const primaryWal = { lsn: "0/100" };
    const replicaWal: { lsn: string; standby?: boolean; down?: boolean } = { lsn: "0/100" };
    const primary = fakeServer("primary", primaryWal);
    const replica = fakeServer("replica", replicaWal);
    const router = createReadRouter({ primary, replica, maxLagMs: 5000, checkIntervalMs: 100, now: () => clock });
    const served = (accountId = "a") => router.run(accountId, async (db) => (await db.pool.query<{ server: string }>("SELECT the read")).rows[0]!.server);
    const tick = async (ms = 100) => {
      clock += ms;
      await router.check();
    };
    return { router, primaryWal, replicaWal, served, tick, advance: (ms: number) => (clock += ms) };
  }

  it("reads on the replica when it is caught up, on the primary before the first check", async () => {
    const { router, served, tick } = setup();
    expect(await served()).toBe("primary");
    await tick();
    expect(router.health()).toEqual({ state: "ok", lagMs: 0 });
    expect(await served()).toBe("replica");
  });

  it("keeps an account that just wrote on the primary until the replica replays a position sampled after the write", async () => {
    const { router, primaryWal, replicaWal, served, tick, advance } = setup();
    await tick();
    advance(10);
    router.noteWrite("a");
    primaryWal.lsn = "0/200";
    expect(await served("a")).toBe("primary");
    expect(await served("b")).toBe("replica");
    await tick(); // sampled after the write: 0/200, not yet replayed
    expect(await served("a")).toBe("primary");
    replicaWal.lsn = "0/200";
    await tick();
    expect(await served("a")).toBe("replica");
  });

  it("leaves a replica behind by more than the limit, and comes back when it catches up", async () => {
    const { router, primaryWal, replicaWal, served, tick } = setup();
    await tick();
    primaryWal.lsn = "0/900";
    await tick();
    await tick(6000);
    expect(router.health()).toMatchObject({ state: "behind" });
    expect(await served()).toBe("primary");
    replicaWal.lsn = "0/900";
    await tick();
    expect(router.health()).toEqual({ state: "ok", lagMs: 0 });
    expect(await served()).toBe("replica");
  });

  it("runs a read again on the primary when the replica fails it, and leaves the replica until a check sees it", async () => {
    const { router, replicaWal, served, tick } = setup();
    await tick();
    replicaWal.down = true;
    expect(await served()).toBe("primary"); // the replica was still taken for up: its failure is retried
    expect(router.health()).toMatchObject({ state: "unreachable" });
    replicaWal.down = false;
    expect(await served()).toBe("primary");
    await tick();
    expect(await served()).toBe("replica");
  });

  it("does not retry the read's own SQL error on the primary", async () => {
    const { router, tick } = setup();
    await tick();
    const sqlError = new pg.DatabaseError("invalid input syntax", 0, "error");
    sqlError.code = "22P02";
    let calls = 0;
    await expect(router.run("a", async () => {
      calls++;
      throw sqlError;
    })).rejects.toBe(sqlError);
    expect(calls).toBe(1);
    expect(router.health().state).toBe("ok");
  });

  it("asks the primary too when the replica's answer may predate another process's write", async () => {
    const { router, tick } = setup();
    await tick();
    const answer = await router.run("a", async (db) => (db.url === "replica" ? 0 : 1), { retryOnPrimary: (n) => n === 0 });
    expect(answer).toBe(1);
  });

  it("tells its first verdict and each change once", async () => {
    const changes: string[] = [];
    const replicaWal = { lsn: "0/1", down: true };
    const router = createReadRouter({ primary: fakeServer("primary", { lsn: "0/1" }), replica: fakeServer("replica", replicaWal), maxLagMs: 5000, checkIntervalMs: 100, onChange: (h) => changes.push(h.state) });
    await router.check();
    await router.check();
    replicaWal.down = false;
    await router.check();
    await router.check();
    expect(changes).toEqual(["unreachable", "ok"]);
  });

  it("never reads a server that is not in recovery", async () => {
    const { router, replicaWal, served, tick } = setup();
    replicaWal.standby = false;
    await tick();
    expect(router.health()).toEqual({ state: "not-a-standby" });
    expect(await served()).toBe("primary");
  });

  it("is the primary alone without a replica", async () => {
    const primary = fakeServer("primary", { lsn: "0/1" });
    const router = createReadRouter({ primary, maxLagMs: 5000, checkIntervalMs: 100 });
    router.noteWrite("a");
    expect(router.database).toBe(primary);
    expect(router.health()).toEqual({ state: "none" });
    expect(await router.run("a", async (db) => db.url)).toBe("primary");
  });
});
