import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAINTENANCE_JOBS, startMaintenance } from "../../lib/maintenance/start";
import { signInFailurePurge } from "../../lib/maintenance/sign-in-failures";
import { webhookSweep } from "../../lib/maintenance/webhook-sweep";
import { createTestAccount } from "../support/fixtures";
import { sendViaApi, simpleEmail, waitFor, waitForEvent } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

/** The one job runner (lib/queue): payloads parsed on fetch, maintenance as pg-boss schedules run on it. */
describe("job runner", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const jobState = async (name: string, id: string) =>
    (await app.ctx.database.pool.query<{ state: string; output: { message?: string } | null }>("SELECT state, output FROM pgboss.job WHERE name = $1 AND id = $2", [name, id]))
      .rows[0];

  it("fails a job whose payload does not parse, with the reason, once, and goes on delivering", async () => {
    // Written past the typed enqueue, as an older version or a hand-made insert could.
    const id = await app.ctx.boss.send("deliver", { messageId: 42, recipientIds: "all" });
    expect(id).toBeTruthy();
    const failed = await waitFor("the bad job failed", async () => {
      const job = await jobState("deliver", id!);
      return job?.state === "failed" ? job : undefined;
    });
    // Written in the shape of the versions before packing, so read as a job of that one message.
    expect(failed.output?.message).toMatch(/^Invalid deliver payload \(messages\.0\.messageId: .+; messages\.0\.recipientIds: .+\); not retried$/);

    const { apiKey } = await createTestAccount(app.ctx);
    const messageId = await sendViaApi(app, apiKey, simpleEmail("after-bad-job@example.org"));
    await waitForEvent(app.ctx, messageId, "delivered");
  });

  it("schedules every maintenance job with pg-boss, and runs the start tick on the runner", async () => {
    const schedules = await app.ctx.boss.getSchedules();
    for (const job of MAINTENANCE_JOBS) expect(schedules.find((s) => s.name === job.name)).toMatchObject({ cron: job.cron, timezone: "UTC" });
    // The versions before the runner had one `maintenance` schedule; it is gone.
    expect(schedules.find((s) => s.name === "maintenance")).toBeUndefined();
    await waitFor("the webhook sweep's start tick completed", async () => {
      const { rows } = await app.ctx.database.pool.query("SELECT 1 FROM pgboss.job WHERE name = $1 AND state = 'completed'", [webhookSweep.name]);
      return rows.length > 0 || undefined;
    });
  });

  it("runs a scheduled tick of a maintenance job on the runner: an old failed sign-in is purged", async () => {
    const pool = app.ctx.database.pool;
    await pool.query("INSERT INTO sign_in_failures (email, address, failed_at) VALUES ('old@example.org', '192.0.2.1', now() - interval '2 days')");
    const runner = await startMaintenance(app.ctx, [signInFailurePurge], { pollIntervalMs: 100 });
    try {
      // What pg-boss's cron sends at the scheduled minute.
      const id = await app.ctx.boss.send(signInFailurePurge.name, {});
      await waitFor("the tick completed", async () => ((await jobState(signInFailurePurge.name, id!))?.state === "completed" ? true : undefined));
      const { rows } = await pool.query("SELECT count(*)::int AS n FROM sign_in_failures WHERE email = 'old@example.org'");
      expect(rows[0].n).toBe(0);
    } finally {
      await runner.stop();
    }
  });
});
