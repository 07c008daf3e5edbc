import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount } from "../support/fixtures";
import { sendViaApi, waitFor } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * Scheduled sends survive kill -9 of the worker process (docs/adr/0125): an
 * API-only app accepts messages scheduled over the next seconds, a separate
 * worker process (started first) releases and delivers them and is killed with SIGKILL while
 * some are still scheduled (and others released or in flight); a second
 * worker, started later, takes over. Every recipient ends with exactly one
 * final event, `delivered`, none before its time.
 */
describe("scheduled sends survive kill -9 of a worker process", () => {
  let app: TestApp;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off", MAILROOM_DELIVERY_JOB_EXPIRE: "3s" });
  });
  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null) w.kill("SIGKILL");
    await app?.stop();
  });

  function startWorker(relayPort: number): Promise<ChildProcess> {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "test/support/delivery-worker.ts")], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: "test",
        DATABASE_URL: app.ctx.database.url,
        MAILROOM_DELIVERY: "relay",
        SMTP_RELAY_URL: `smtp://127.0.0.1:${relayPort}`,
        MAILROOM_WORKER_CONCURRENCY: "4",
        MAILROOM_DELIVERY_JOB_EXPIRE: "3s",
        MAILROOM_QUEUE_MAINTENANCE_INTERVAL: "1s",
        MAILROOM_PUBLIC_URL: app.url,
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    workers.push(child);
    return new Promise((resolve, reject) => {
      child.stdout!.on("data", (d: Buffer) => {
        if (d.toString().includes("ready")) resolve(child);
      });
      child.once("exit", (code) => reject(new Error(`worker exited with ${code} before it was ready`)));
    });
  }

  it("every scheduled recipient is delivered once, at or after its time, across the kill", async () => {
    const { SMTPServer } = await import("smtp-server");
    const received: { to: string; at: number }[] = [];
    const relay = new SMTPServer({
      logger: false,
      authOptional: true,
      disabledCommands: ["AUTH", "STARTTLS"],
      onData(stream, session, callback) {
        stream.on("data", () => {});
        stream.on("end", () => {
          setTimeout(() => {
            for (const r of session.envelope.rcptTo) received.push({ to: r.address, at: Date.now() });
            callback(null, "2.0.0 Ok");
          }, 100);
        });
      },
    });
    relay.on("error", () => {}); // the killed worker's connections reset
    await new Promise<void>((r) => relay.listen(0, "127.0.0.1", () => r()));
    const relayPort = (relay.server.address() as { port: number }).port;

    const { apiKey } = await createTestAccount(app.ctx);
    const pool = app.ctx.database.pool;
    const scheduled = async () => (await pool.query("SELECT count(*)::int AS n FROM messages WHERE schedule_status = 'scheduled'")).rows[0].n as number;
    const first = await startWorker(relayPort);
    const sendAtOf = new Map<string, number>();
    // 30 messages due over the next 3–18 s (two a second), two recipients each.
    for (let i = 0; i < 30; i++) {
      const sendAt = Math.floor(Date.now() / 1000) + 3 + Math.floor(i / 2);
      const to = [`s${i}a@example.org`, `s${i}b@example.net`];
      for (const t of to) sendAtOf.set(t, sendAt);
      await sendViaApi(app, apiKey, { From: { email: "shop@example.com" }, To: to, Subject: `scheduled ${i}`, ContentType: "Text", PlainContent: "x", SendAt: sendAt });
    }

    // Killed once a few have been delivered, while most are still scheduled.
    await waitFor("some deliveries", async () => (received.length >= 4 ? true : undefined), 30_000);
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    const left = await scheduled();
    expect(left).toBeGreaterThan(0);
    // No worker for 3 s: the due ones wait, none is lost or failed.
    await new Promise((r) => setTimeout(r, 3000));
    const { rows: failedEarly } = await pool.query("SELECT count(*)::int AS n FROM events WHERE type = 'failed'");
    expect(failedEarly[0].n).toBe(0);

    await startWorker(relayPort);
    await waitFor(
      "every recipient final",
      async () => {
        const { rows } = await pool.query("SELECT count(*)::int AS n FROM message_recipients WHERE status IN ('queued', 'deferred')");
        return rows[0].n === 0 ? true : undefined;
      },
      60_000,
    );
    const { rows: finals } = await pool.query<{ recipient: string; type: string; n: number }>(
      "SELECT recipient, type, count(*)::int AS n FROM events WHERE type IN ('delivered', 'failed', 'rejected') GROUP BY recipient, type",
    );
    expect(finals).toHaveLength(60);
    expect(finals.every((f) => f.type === "delivered" && f.n === 1)).toBe(true);
    // Every recipient reached the relay, none before its time.
    expect(new Set(received.map((r) => r.to))).toEqual(new Set(sendAtOf.keys()));
    for (const r of received) expect(r.at, r.to).toBeGreaterThanOrEqual(sendAtOf.get(r.to)! * 1000);
    expect(await scheduled()).toBe(0);

    const second = workers[1]!;
    second.kill("SIGTERM");
    expect(await new Promise((r) => second.once("exit", (code) => r(code)))).toBe(0);
    await new Promise<void>((r) => relay.close(() => r()));
  }, 150_000);
});
