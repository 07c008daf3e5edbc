import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhook } from "../../lib/domain/webhooks/webhooks";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { runCli, runCliJson } from "./cli-support";

/**
 * `mailroom queue` (docs/cli.md, "Delivery queues") on the database of a
 * running app whose workers are off, so that what is accepted stays queued.
 */
// Each command is a node process of its own: seconds apiece on a loaded machine.
describe("mailroom queue", { timeout: 480_000 }, () => {
  let app: TestApp;
  let env: Record<string, string>;
  const send = (key: string, to: string[]) =>
    app.fetch("/api/v1/email", {
      method: "POST",
      headers: bearer(key),
      body: JSON.stringify({ From: { email: "ann@example.com" }, To: to, Subject: "Hi", ContentType: "Text", PlainContent: "Hi" }),
    });
  const q = <R extends object>(sql: string, values: unknown[] = []) => app.ctx.database.pool.query<R>(sql, values).then((r) => r.rows);

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off", MAILROOM_DELIVERY: "mx", MAILROOM_METRICS_TOKEN: "scrape-token" });
    env = { DATABASE_URL: app.ctx.database.url, MAILROOM_DELIVERY: "mx" };
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("lists pending mail by domain, suspends, resumes and refuses what names no destination", async () => {
    const acct = await createTestAccount(app.ctx, { name: "Lister" });
    for (let i = 0; i < 3; i++) expect((await send(acct.apiKey, [`a${i}@list.example`])).status).toBe(200);
    expect((await send(acct.apiKey, ["b@other-list.example"])).status).toBe(200);

    type Row = { key: string; state: string; queued: number; deferred: number; holds: { reason: string; until: string | null; source: string }[] };
    let rows = await runCliJson<Row[]>(["queue", "list"], env);
    expect(rows.find((r) => r.key === "list.example")).toMatchObject({ state: "active", queued: 3, deferred: 0, holds: [] });
    expect(rows.find((r) => r.key === "other-list.example")).toMatchObject({ queued: 1 });

    const hold = await runCliJson(["queue", "suspend", "LIST.example", "--for", "2h", "--reason", "421 4.7.28 everywhere"], env);
    expect(hold).toMatchObject({ key: "list.example", accountId: null, source: "operator", placedBy: "cli", reason: "421 4.7.28 everywhere" });
    expect(Date.parse((hold as { until: string }).until) - Date.now()).toBeGreaterThan(7_100_000);
    await runCliJson(["queue", "suspend", "gmail", "--account", acct.accountId], env);

    rows = await runCliJson<Row[]>(["queue", "list"], env);
    expect(rows.find((r) => r.key === "list.example")).toMatchObject({ state: "suspended", queued: 3, holds: [{ reason: "421 4.7.28 everywhere", source: "operator" }] });
    expect(rows.find((r) => r.key === "gmail")).toMatchObject({ state: "held", queued: 0 });
    const metrics = await (await app.fetch("/metrics", { headers: { Authorization: "Bearer scrape-token" } })).text();
    expect(metrics).toContain('mailroom_destination_holds{destination="list.example",source="operator",scope="all"} 1');
    expect(metrics).toContain('mailroom_destination_holds{destination="gmail",source="operator",scope="account"} 1');
    const human = await runCli(["queue", "list"], env);
    expect(human.stdout).toMatch(/list\.example\s+suspended until/);

    expect(await runCliJson(["queue", "resume", "list.example"], env)).toMatchObject({ released: [{ key: "list.example" }] });
    expect(await runCli(["queue", "resume", "list.example"], env)).toMatchObject({ code: 1, stderr: "error: list.example is not held\n" });
    await runCliJson(["queue", "resume", "gmail", "--account", acct.accountId], env);
    rows = await runCliJson<Row[]>(["queue", "list"], env);
    expect(rows.find((r) => r.key === "list.example")?.state).toBe("active");
    expect(rows.find((r) => r.key === "gmail")).toBeUndefined();

    expect(await runCli(["queue", "suspend", "a b"], env)).toMatchObject({ code: 1, stderr: 'error: "a b" is not a recipient domain, a provider name or relay\n' });
    expect(await runCli(["queue", "suspend", "x.example", "--for", "soon"], env)).toMatchObject({ code: 1 });
    expect((await runCli(["queue", "bounce", "gmail", "--reason", "x"], env)).stderr).toMatch(/name a recipient domain/);
    expect((await runCli(["queue", "bounce", "relay", "--reason", "x"], env)).stderr).toMatch(/delivers to MX hosts/);
  });

  it("retry-now makes a domain's deferred recipients due now, of one account when asked", async () => {
    const a = await createTestAccount(app.ctx, { name: "Retry A" });
    const b = await createTestAccount(app.ctx, { name: "Retry B" });
    expect((await send(a.apiKey, ["x@retry.example"])).status).toBe(200);
    expect((await send(b.apiKey, ["y@retry.example"])).status).toBe(200);
    // As a deferral leaves them: deferred, their retry job an hour away.
    await q(`UPDATE message_recipients SET status = 'deferred', next_attempt_at = now() + interval '1 hour' WHERE email LIKE '%@retry.example'`);
    await q(`UPDATE pgboss.job j SET start_after = now() + interval '1 hour'
              WHERE j.name = 'deliver' AND j.data::text LIKE ANY (SELECT '%' || id || '%' FROM message_recipients WHERE email LIKE '%@retry.example')`);
    const due = () => q<{ email: string; due: boolean }>(`SELECT email, next_attempt_at <= now() AS due FROM message_recipients WHERE email LIKE '%@retry.example' ORDER BY email`);

    expect(await runCliJson(["queue", "retry-now", "retry.example", "--account", a.accountId], env)).toEqual({ recipients: 1 });
    expect(await due()).toEqual([{ email: "x@retry.example", due: true }, { email: "y@retry.example", due: false }]);
    expect(await runCliJson(["queue", "retry-now", "retry.example"], env)).toEqual({ recipients: 1 });
    expect((await due()).every((r) => r.due)).toBe(true);
    const late = await q<{ n: number }>(
      `SELECT count(*)::int AS n FROM pgboss.job j WHERE j.name = 'deliver' AND j.start_after > now() + interval '1 minute'
          AND j.data::text LIKE ANY (SELECT '%' || id || '%' FROM message_recipients WHERE email LIKE '%@retry.example')`,
    );
    expect(late[0]!.n).toBe(0);
  });

  it("bounce fails each pending recipient of the domain once, with its event and notification, and no other domain's or account's", async () => {
    const acct = await createTestAccount(app.ctx, { name: "Bouncer" });
    const other = await createTestAccount(app.ctx, { name: "Bystander" });
    await createWebhook(app.ctx.database, acct.accountId, { event: "bounce", url: "http://127.0.0.1:9/hook" }, async () => {});
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await send(acct.apiKey, [`r${i}@gone.example`, `k${i}@kept.example`]);
      ids.push(((await r.json()) as { MessageID: string }).MessageID);
    }
    const bystander = ((await (await send(other.apiKey, ["z@gone.example"])).json()) as { MessageID: string }).MessageID;
    // One of them deferred once already: it is failed too.
    await q(`UPDATE message_recipients SET status = 'deferred', attempts = 1 WHERE email = 'r0@gone.example'`);

    const result = await runCliJson(["queue", "bounce", "gone.example", "--account", "Bouncer", "--reason", "domain gone"], env);
    expect(result).toEqual({ failed: 4 });
    // Again: nothing is pending any more, so nothing is failed twice.
    expect(await runCliJson(["queue", "bounce", "gone.example", "--account", "Bouncer", "--reason", "domain gone"], env)).toEqual({ failed: 0 });

    const events = await q<{ recipient: string; type: string; reason: string }>(
      `SELECT recipient, type, reason FROM events WHERE message_id = ANY($1::uuid[]) AND type IN ('delivered', 'failed', 'rejected') ORDER BY recipient`,
      [ids],
    );
    expect(events).toEqual([0, 1, 2, 3].map((i) => ({ recipient: `r${i}@gone.example`, type: "failed", reason: "Bounced by the operator: domain gone" })));
    const notifications = await q<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_notifications n WHERE n.account_id = $1 AND n.payload::text LIKE '%Bounced by the operator: domain gone%'`,
      [acct.accountId],
    );
    expect(notifications[0]!.n).toBe(4);
    const statuses = await q<{ email: string; status: string }>(`SELECT email, status FROM message_recipients WHERE message_id = ANY($1::uuid[]) ORDER BY email`, [[...ids, bystander]]);
    expect(statuses.filter((s) => s.status === "failed").map((s) => s.email)).toEqual(["r0@gone.example", "r1@gone.example", "r2@gone.example", "r3@gone.example"]);
    expect(statuses.filter((s) => s.status === "queued").map((s) => s.email).sort()).toEqual(["k0@kept.example", "k1@kept.example", "k2@kept.example", "k3@kept.example", "z@gone.example"]);
  });
});
