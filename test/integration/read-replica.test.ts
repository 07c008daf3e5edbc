import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestAccount } from "../support/fixtures";
import { postgresServerBin, startReplicatedPair, type ReplicatedPair } from "../support/pg-replica";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * MAILROOM_READ_DATABASE_URL against a real streaming replica: a primary of
 * the machine's PostgreSQL and a standby made by `pg_basebackup -R`
 * (docs/adr/0035, 0036, 0037). Which server answered a read is told by its
 * content: the test changes a row on the primary while the standby's
 * replay is paused, so the replica still has the old value.
 */
const bin = postgresServerBin();
if (!bin) console.warn("read-replica.test.ts: skipped, no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)");

interface EventsBody {
  TotalRecords: number;
  Events: { Event: string; Reason: string; Message: { Headers: { MessageId: string } } }[];
}

describe.skipIf(!bin)("event reads from a streaming replica", () => {
  let pair: ReplicatedPair;
  let app: TestApp;
  let primary: pg.Pool;
  let key: string;
  let accountId: string;

  const events = async (query = "") => {
    const res = await app.fetch(`/api/v1/events${query}`, { headers: bearer(key) });
    expect(res.status).toBe(200);
    return (await res.json()) as EventsBody;
  };
  const readyz = async () => {
    const res = await app.fetch("/readyz");
    return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, string> } };
  };
  const send = async (subject: string) => {
    const res = await app.fetch("/api/v1/email", {
      method: "POST",
      headers: bearer(key),
      body: JSON.stringify({ From: { email: "ann@example.com" }, To: [{ email: "bob@example.net" }], Subject: subject, ContentType: "Text", PlainContent: "hi" }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { MessageID: string }).MessageID;
  };
  const replicaServes = () => expect.poll(async () => (await readyz()).body.checks.readReplica, { timeout: 30_000, interval: 100 }).toBe("ok");
  /** The replica stops replaying and the primary's rows of this account change: what a read then shows tells who answered. */
  const diverge = async (reason: string) => {
    await pair.standbyQuery("SELECT pg_wal_replay_pause()");
    await expect.poll(async () => (await pair.standbyQuery<{ s: string }>("SELECT pg_get_wal_replay_pause_state() AS s"))[0]!.s, { timeout: 10_000 }).toBe("paused");
    await primary.query("UPDATE events SET reason = $2 WHERE account_id = $1", [accountId, reason]);
  };
  const serving = async () => {
    const text = await (await app.fetch("/metrics", { headers: { Authorization: "Bearer metrics-token" } })).text();
    return /^mailroom_read_replica_serving (\d)$/m.exec(text)?.[1];
  };
  const resume = () => pair.standbyQuery("SELECT pg_wal_replay_resume()");

  beforeAll(async () => {
    pair = await startReplicatedPair(bin!);
    app = await startTestApp({
      DATABASE_URL: pair.primaryUrl,
      MAILROOM_READ_DATABASE_URL: pair.standbyUrl,
      MAILROOM_READ_CHECK_INTERVAL: "50ms",
      MAILROOM_READ_MAX_LAG: "60s",
      MAILROOM_WORKERS: "off",
      MAILROOM_METRICS_TOKEN: "metrics-token",
    });
    primary = new pg.Pool({ connectionString: pair.primaryUrl, max: 2 });
    const account = await createTestAccount(app.ctx);
    key = account.apiKey;
    accountId = account.accountId;
  }, 120_000);

  afterAll(async () => {
    await primary?.end();
    await app?.stop();
    await pair?.stop();
  });

  it("serves GET /events from the replica once it has the account's writes", async () => {
    const messageId = await send("first");
    await replicaServes();
    // The replica has replayed the acceptance: the account's reads go back to it.
    await expect.poll(() => app.ctx.reads.run(accountId, async (db) => db === app.ctx.readDatabase), { timeout: 10_000 }).toBe(true);
    expect(await serving()).toBe("1");
    await diverge("changed on the primary");
    try {
      const body = await events(`?MessageID=${messageId}`);
      expect(body.TotalRecords).toBe(1);
      expect(body.Events[0]!.Reason).not.toBe("changed on the primary");
      const stats = await app.fetch(`/api/v1/stats?StartDate=${Math.floor(Date.now() / 1000) - 3600}&EndDate=${Math.floor(Date.now() / 1000)}`, { headers: bearer(key) });
      expect(stats.status).toBe(200);
    } finally {
      await resume();
    }
    await expect.poll(async () => (await events(`?MessageID=${messageId}`)).Events[0]?.Reason, { timeout: 10_000 }).toBe("changed on the primary");
  });

  it("answers a message just accepted from the primary while the replica lags behind it", async () => {
    await replicaServes();
    await diverge("before the send");
    try {
      const messageId = await send("read your writes");
      // Replay is paused: only the primary has this message.
      const body = await events(`?MessageID=${messageId}`);
      expect(body.TotalRecords).toBe(1);
      expect(body.Events[0]!.Message.Headers.MessageId).toBe(messageId);
      // The account's other reads see its write too (and the primary's rows).
      const all = await events();
      expect(all.Events.map((e) => e.Message.Headers.MessageId)).toContain(messageId);
      expect(all.Events.every((e) => e.Reason === "before the send" || e.Message.Headers.MessageId === messageId)).toBe(true);
      expect((await readyz()).body.checks.readReplica).toBe("ok");
    } finally {
      await resume();
    }
  });

  it("answers reads on the primary while the replica is down, shows it on /readyz, and goes back to the replica when it returns", async () => {
    await replicaServes();
    await pair.stopStandby();
    // At once (the sampler may not have noticed yet) and after: the reads answer.
    expect((await events()).TotalRecords).toBeGreaterThan(0);
    await expect.poll(async () => (await readyz()).body.checks.readReplica, { timeout: 10_000 }).toMatch(/^unreachable: .*event reads on the primary$/);
    const ready = await readyz();
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe("ready");
    expect(await serving()).toBe("0");
    const messageId = await send("while the replica is down");
    expect((await events(`?MessageID=${messageId}`)).TotalRecords).toBe(1);
    const stats = await app.fetch(`/api/v1/stats?StartDate=${Math.floor(Date.now() / 1000) - 3600}&EndDate=${Math.floor(Date.now() / 1000)}`, { headers: bearer(key) });
    expect(stats.status).toBe(200);

    await pair.startStandby();
    await replicaServes();
    await expect.poll(() => app.ctx.reads.run(accountId, async (db) => db === app.ctx.readDatabase), { timeout: 10_000 }).toBe(true);
    await diverge("after the restart");
    try {
      const body = await events(`?MessageID=${messageId}`);
      expect(body.TotalRecords).toBe(1);
      expect(body.Events[0]!.Reason).not.toBe("after the restart");
    } finally {
      await resume();
    }
  });

  it("starts while the replica is down, reads from the primary, and takes the replica when it comes up", async () => {
    await pair.stopStandby();
    const second = await startTestApp({
      DATABASE_URL: pair.primaryUrl,
      MAILROOM_READ_DATABASE_URL: pair.standbyUrl,
      MAILROOM_READ_CHECK_INTERVAL: "50ms",
      MAILROOM_WORKERS: "off",
    });
    try {
      const res = await second.fetch("/api/v1/events", { headers: bearer(key) });
      expect(res.status).toBe(200);
      expect(((await res.json()) as EventsBody).TotalRecords).toBeGreaterThan(0);
      const checks = async () => ((await (await second.fetch("/readyz")).json()) as { checks: Record<string, string> }).checks.readReplica;
      await expect.poll(checks, { timeout: 10_000 }).toMatch(/^unreachable: /);
      await pair.startStandby();
      await expect.poll(checks, { timeout: 30_000, interval: 100 }).toBe("ok");
    } finally {
      await second.stop();
    }
  });
});
