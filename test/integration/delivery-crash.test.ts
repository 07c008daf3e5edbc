import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount } from "../support/fixtures";
import { sendViaApi, waitFor } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * At-least-once delivery across a worker crash: an API-only app accepts
 * messages, a separate worker process delivers them to a slow relay and is
 * killed with SIGKILL mid-flight; a second worker takes over. Every accepted
 * recipient must end with exactly one final event, no job may stay stuck,
 * and duplicates at the relay may only come from jobs in flight at the kill.
 */
describe("delivery survives kill -9 of a worker process", () => {
  let app: TestApp;
  const workers: ChildProcess[] = [];
  const CONCURRENCY = 4;

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
        MAILROOM_WORKER_CONCURRENCY: String(CONCURRENCY),
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

  it("delivers every accepted recipient exactly once as far as events go, nothing stuck", async () => {
    // A relay that holds each message ~150 ms before answering.
    const { SMTPServer } = await import("smtp-server");
    const received: string[] = [];
    const relay = new SMTPServer({
      logger: false,
      authOptional: true,
      disabledCommands: ["AUTH", "STARTTLS"],
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          setTimeout(() => {
            received.push(session.envelope.rcptTo.map((r) => r.address).join(","));
            callback(null, "2.0.0 Ok");
          }, 150);
        });
      },
    });
    relay.on("error", () => {}); // the killed worker's connections reset
    await new Promise<void>((r) => relay.listen(0, "127.0.0.1", () => r()));
    const relayPort = (relay.server.address() as { port: number }).port;

    const { apiKey } = await createTestAccount(app.ctx);
    const recipients: string[] = [];
    const N = 40;
    for (let i = 0; i < N; i++) {
      const to = [`r${i}a@example.org`, `r${i}b@example.net`];
      recipients.push(...to);
      await sendViaApi(app, apiKey, {
        From: { email: "shop@example.com" },
        To: to,
        Subject: `crash ${i}`,
        ContentType: "Text",
        PlainContent: "x",
      });
    }

    const t0 = Date.now();
    const mark = (what: string) => console.log(`[crash-test] ${what} at +${Date.now() - t0} ms, relay has ${received.length}`);
    const first = await startWorker(relayPort);
    mark("worker 1 ready");
    await waitFor("some deliveries", async () => (received.length >= 12 ? true : undefined), 30_000);
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    const atKill = received.length;
    mark("worker 1 killed");
    expect(atKill).toBeLessThan(recipients.length);

    await startWorker(relayPort);
    mark("worker 2 ready");
    const pool = app.ctx.database.pool;
    await waitFor(
      "every recipient final",
      async () => {
        const { rows } = await pool.query("SELECT count(*)::int AS n FROM message_recipients WHERE status IN ('queued', 'deferred')");
        return rows[0].n === 0 ? true : undefined;
      },
      60_000,
    ).catch(async (err) => {
      const { rows } = await pool.query("SELECT state, count(*)::int AS n FROM pgboss.job WHERE name = 'deliver' GROUP BY state");
      const { rows: st } = await pool.query("SELECT status, count(*)::int AS n FROM message_recipients GROUP BY status");
      throw new Error(`${(err as Error).message}: jobs ${JSON.stringify(rows)} recipients ${JSON.stringify(st)}`);
    });

    mark("all final");
    const { rows: finals } = await pool.query<{ recipient: string; n: number }>(
      "SELECT recipient, count(*)::int AS n FROM events WHERE type IN ('delivered', 'failed', 'rejected') GROUP BY recipient",
    );
    expect(finals).toHaveLength(recipients.length);
    expect(finals.every((f) => f.n === 1)).toBe(true);
    const { rows: delivered } = await pool.query("SELECT count(*)::int AS n FROM events WHERE type = 'delivered'");
    expect(delivered[0].n).toBe(recipients.length);

    // Every recipient reached the relay; extra copies only from jobs in flight at the kill.
    expect(new Set(received)).toEqual(new Set(recipients));
    const duplicates = received.length - recipients.length;
    expect(duplicates).toBeLessThanOrEqual(CONCURRENCY * 2);

    // No deliver job left behind.
    await waitFor(
      "the queue to drain",
      async () => {
        const { rows } = await pool.query("SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'deliver' AND state IN ('created', 'retry', 'active')");
        return rows[0].n === 0 ? true : undefined;
      },
      20_000,
    );
    // The second worker stops gracefully on SIGTERM; then the relay has no clients left.
    const second = workers[1]!;
    second.kill("SIGTERM");
    expect(await new Promise((r) => second.once("exit", (code) => r(code)))).toBe(0);
    await new Promise<void>((r) => relay.close(() => r()));
  }, 120_000);
});
