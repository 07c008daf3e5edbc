import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount } from "../support/fixtures";
import { sendViaApi, simpleEmail, waitFor, waitForEvent } from "../support/delivery-helpers";
import { freePort } from "../support/processes";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Worker processes (ADR 0021): MAILROOM_WORKERS=process (the default of `npm start`): the
 * queue workers run in a supervised child process, not on the HTTP process's
 * event loop; one that dies is restarted and its jobs come back at once.
 */
describe("worker processes (MAILROOM_WORKERS=process)", () => {
  let app: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "process", MAILROOM_WORKER_PROCESSES: "1" });
    ({ apiKey } = await createTestAccount(app.ctx));
  });
  afterAll(async () => {
    await app?.stop();
  });

  const leaseHolders = async () =>
    (await app.ctx.database.pool.query<{ pid: number; role: string }>("SELECT pid, role FROM queue_workers ORDER BY id")).rows;
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it("delivers from a child process, restarts it when it is killed, and stops it with the app", { timeout: 120_000 }, async () => {
    // The only lease holder is the child: this process runs no job loop.
    const [worker] = await leaseHolders();
    expect(worker).toMatchObject({ role: "worker" });
    expect(worker!.pid).not.toBe(process.pid);
    const first = await sendViaApi(app, apiKey, simpleEmail("first@example.org"));
    await waitForEvent(app.ctx, first, "delivered");

    process.kill(worker!.pid, "SIGKILL");
    // Restarted after the supervisor's backoff (1 s), under a new lease; the dead one's row is gone.
    // The bound is generous: a fresh worker compiles its TypeScript, and beside other test files on
    // two cores that once took over 20 s.
    const restarted = await waitFor("a new worker process", async () => {
      const rows = await leaseHolders();
      return rows.length === 1 && rows[0]!.pid !== worker!.pid ? rows[0] : undefined;
    }, 45_000);
    const second = await sendViaApi(app, apiKey, simpleEmail("second@example.org"));
    await waitForEvent(app.ctx, second, "delivered");

    await app.stop();
    expect(alive(restarted.pid)).toBe(false);
    app = undefined as unknown as TestApp;
  });

  it("gives each forked worker its own metrics port (the configured one + its slot)", async () => {
    const port = await freePort();
    const two = await startTestApp({ MAILROOM_WORKERS: "process", MAILROOM_WORKER_PROCESSES: "2", MAILROOM_WORKER_METRICS_PORT: String(port), MAILROOM_METRICS_TOKEN: "scrape" });
    try {
      for (const p of [port, port + 1]) {
        const res = await waitFor(`worker metrics on ${p}`, async () => {
          const r = await fetch(`http://127.0.0.1:${p}/metrics`, { headers: { Authorization: "Bearer scrape" } }).catch(() => undefined);
          return r?.ok ? r : undefined;
        });
        expect(await res.text()).toContain("mailroom_deliveries_total");
      }
    } finally {
      await two.stop();
    }
  });
});
