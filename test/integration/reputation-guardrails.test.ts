import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReputationResponse } from "../../lib/contract/reputation";
import { bearer, createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued, sendViaApi, simpleEmail, waitFor, waitForEvent } from "../support/delivery-helpers";
import { submissionEnv } from "../support/submission";
import { startTestApp, type TestApp } from "../support/test-app";
import { runCli, runCliJson } from "./cli-support";

/**
 * The reputation guardrails (docs/contract.md §17.6, docs/adr/0136) with the
 * complaint threshold lowered: sandbox `complaint@` recipients come back as
 * real ARF reports through inbound SMTP, the account is paused, its next
 * POST /email, batch and SMTP submission are refused with 403 / 550, another
 * account still sends, and `mailroom accounts resume` lets it send again.
 */
describe("reputation guardrails", { timeout: 120_000 }, () => {
  let app: TestApp;
  let port: number;
  let a: { apiKey: string; accountId: string };
  let b: { apiKey: string; accountId: string };
  beforeAll(async () => {
    const s = await submissionEnv();
    port = s.port;
    app = await startTestApp({
      ...s.env,
      MAILROOM_SANDBOX_COMPLAINT_DELAY: "100ms",
      MAILROOM_PAUSE_COMPLAINT_RATE: "10%",
      MAILROOM_GUARDRAIL_MIN_VOLUME: "4",
      MAILROOM_GUARDRAIL_DEBOUNCE_SECONDS: "0",
    });
    a = await createTestAccount(app.ctx, { name: "Spammy", domain: "example.com" });
    b = await createTestAccount(app.ctx, { name: "Careful", domain: "careful.example" });
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
  });

  const reputation = async (apiKey: string) => {
    const res = await app.fetch("/api/v1/reputation", { headers: bearer(apiKey) });
    expect(res.status).toBe(200);
    return (await res.json()) as ReputationResponse;
  };
  const post = (apiKey: string, path: string, body: unknown) =>
    app.fetch(path, { method: "POST", headers: bearer(apiKey), body: JSON.stringify(body) });
  const submit = async (pass: string, from: string) => {
    const t = nodemailer.createTransport({ host: "127.0.0.1", port, requireTLS: true, auth: { user: "apikey", pass }, tls: { rejectUnauthorized: false } });
    try {
      return (await t.sendMail({ from, to: "ann@example.org", subject: "x", text: "x" })).response;
    } catch (e) {
      return (e as { response?: string }).response ?? String(e);
    } finally {
      t.close();
    }
  };
  const env = () => ({ DATABASE_URL: app.ctx.config.databaseUrl! });

  it("answers the thresholds and empty windows of a new account", async () => {
    expect(await reputation(a.apiKey)).toEqual({
      Status: "ok",
      PausedAt: null,
      PausedReason: null,
      Windows: {
        day: { Sent: 0, Delivered: 0, Bounced: 0, Complained: 0, BounceRate: 0, ComplaintRate: 0 },
        week: { Sent: 0, Delivered: 0, Bounced: 0, Complained: 0, BounceRate: 0, ComplaintRate: 0 },
      },
      Thresholds: { WarnBounceRate: 0.025, PauseBounceRate: 0.05, WarnComplaintRate: 0.05, PauseComplaintRate: 0.1, MinVolume: 4 },
    });
  });

  it("pauses the account past its complaint threshold: POST /email, batches and SMTP submission refused, another account unaffected", async () => {
    const ids: string[] = [];
    for (const to of ["ann@example.org", "bob@example.org", "cy@example.org", "complaint@example.org"]) ids.push(await sendViaApi(app, a.apiKey, simpleEmail(to)));
    await waitForEvent(app.ctx, ids[3]!, "complained", "complaint@example.org");

    const paused = await waitFor("the account paused", async () => {
      const r = await reputation(a.apiKey);
      return r.Status === "paused" ? r : undefined;
    });
    expect(paused.PausedAt).toBeGreaterThan(Date.now() / 1000 - 120);
    expect(paused.PausedReason).toMatch(/^the last day's complaint rate is \d+(\.\d+)?% \(1 complaints of \d delivered\), past the pause threshold of 10%$/);
    expect(paused.Windows.day).toMatchObject({ Sent: 4, Bounced: 0, Complained: 1 });
    expect(paused.Windows.day.ComplaintRate).toBeCloseTo(1 / paused.Windows.day.Delivered);
    expect(paused.Windows.week).toEqual(paused.Windows.day);

    // The key cache holds the account's state for up to 5 s in this process.
    const refused = await waitFor("POST /email refused", async () => {
      const res = await post(a.apiKey, "/api/v1/email", simpleEmail("dan@example.org"));
      return res.status === 403 ? res : undefined;
    });
    const body = (await refused.json()) as { Errors: { Code: number; Message: string }[] };
    expect(body.Errors).toEqual([{ Code: 403, Message: `Sending is paused for this account: ${paused.PausedReason}. An owner resumes it in the dashboard or with \`mailroom accounts resume\`` }]);

    const batch = await post(a.apiKey, "/api/v1/email/batch", [simpleEmail("dan@example.org")]);
    expect(batch.status).toBe(403);
    expect(((await batch.json()) as { Errors: { Code: number }[] }).Errors[0]!.Code).toBe(403);
    // A body that is not even JSON: refused before it is read.
    const garbage = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(a.apiKey), body: "{not json" });
    expect(garbage.status).toBe(403);

    expect(await submit(a.apiKey, "shop@example.com")).toBe(`550 5.7.1 ${body.Errors[0]!.Message}`);

    // Another account sends, by the API and by SMTP, and its reputation is its own.
    expect((await post(b.apiKey, "/api/v1/email", simpleEmail("ann@example.org", { From: { name: "", email: "hi@careful.example" } }))).status).toBe(200);
    expect(await submit(b.apiKey, "hi@careful.example")).toMatch(/^250 /);
    const other = await reputation(b.apiKey);
    expect(other).toMatchObject({ Status: "ok", PausedAt: null, PausedReason: null });
    expect(other.Windows.day.Complained).toBe(0);
    // Reads of the paused account go on.
    expect((await app.fetch("/api/v1/events", { headers: bearer(a.apiKey) })).status).toBe(200);
  });

  it("is resumed by `mailroom accounts resume`, recorded, and the rates that paused it count no more", async () => {
    // Not paused: nothing to resume.
    const notPaused = await runCli(["accounts", "resume", b.accountId], env());
    expect(notPaused.code).not.toBe(0);
    expect(notPaused.stderr).toContain("not paused");

    const resumed = await runCliJson<{ accountId: string; resumedBy: string }>(["accounts", "resume", a.accountId], env());
    expect(resumed).toMatchObject({ accountId: a.accountId, resumedBy: "cli" });
    const { rows } = await app.ctx.database.pool.query("SELECT sending_paused_at, reputation_resumed_by, reputation_resumed_at FROM accounts WHERE id = $1", [a.accountId]);
    expect(rows[0]).toMatchObject({ sending_paused_at: null, reputation_resumed_by: "cli" });
    expect(rows[0].reputation_resumed_at).toBeInstanceOf(Date);

    const after = await reputation(a.apiKey);
    expect(after).toMatchObject({ Status: "ok", PausedAt: null, PausedReason: null });
    expect(after.Windows.day).toMatchObject({ Sent: 0, Complained: 0 });

    await waitFor("POST /email accepted again", async () => {
      const res = await post(a.apiKey, "/api/v1/email", simpleEmail("dan@example.org"));
      return res.status === 200 ? true : undefined;
    });
    expect(await submit(a.apiKey, "shop@example.com")).toMatch(/^250 /);
  });

  it("warns past half the pause threshold: the account's admins are emailed once, and it keeps sending", async () => {
    const c = await createTestAccount(app.ctx, { name: "Borderline", domain: "border.example" });
    // The system sender is the default account's (here Careful's, from its verified domain).
    await runCliJson(["accounts", "set-default", b.accountId], env());
    await runCliJson(["accounts", "set-guardrails", c.accountId, "--pause-complaint-rate", "40%"], env());
    const pool = app.ctx.database.pool;
    const { rows: users } = await pool.query<{ id: string }>("INSERT INTO staff_users (email, role, password_hash) VALUES ('boss@border.example', 'admin', 'x') RETURNING id");
    await pool.query("INSERT INTO staff_memberships (user_id, account_id, role) VALUES ($1, $2, 'admin')", [users[0]!.id, c.accountId]);

    const from = { From: { name: "", email: "hi@border.example" } };
    const ids: string[] = [];
    for (const to of ["ann@example.org", "bob@example.org", "cy@example.org", "complaint@example.org"]) ids.push(await sendViaApi(app, c.apiKey, simpleEmail(to, from)));
    await waitForEvent(app.ctx, ids[3]!, "complained", "complaint@example.org");
    // 1 complaint of 4 delivered: 25%, past the warning (20%), short of the pause (40%).
    const warned = await waitFor("the account warned", async () => {
      const r = await reputation(c.apiKey);
      return r.Status === "warning" ? r : undefined;
    });
    expect(warned).toMatchObject({ PausedAt: null, PausedReason: null });
    const mail = await waitFor("the admins' email", async () => {
      const { rows } = await pool.query<{ subject: string; account_id: string }>(
        `SELECT m.subject, m.account_id FROM messages m JOIN message_recipients r ON r.message_id = m.id
          WHERE r.email = 'boss@border.example'`,
      );
      return rows.length > 0 ? rows : undefined;
    });
    expect(mail).toEqual([{ subject: "Reputation warning for Borderline", account_id: b.accountId }]);
    // Still sending, and one email for this warning.
    expect((await post(c.apiKey, "/api/v1/email", simpleEmail("dan@example.org", from))).status).toBe(200);
    const { rows: again } = await pool.query("SELECT 1 FROM message_recipients WHERE email = 'boss@border.example'");
    expect(again).toHaveLength(1);
  });

  it("takes an owner's own thresholds from `mailroom accounts set-guardrails`", async () => {
    const set = await runCliJson<{ pauseBounceRate: number; pauseComplaintRate: number | null; minVolume: number }>(
      ["accounts", "set-guardrails", b.accountId, "--pause-bounce-rate", "2%", "--min-volume", "500"],
      env(),
    );
    expect(set).toMatchObject({ pauseBounceRate: 0.02, pauseComplaintRate: null, minVolume: 500 });
    expect((await reputation(b.apiKey)).Thresholds).toEqual({ WarnBounceRate: 0.01, PauseBounceRate: 0.02, WarnComplaintRate: 0.05, PauseComplaintRate: 0.1, MinVolume: 500 });
    // Another account's thresholds are untouched.
    expect((await reputation(a.apiKey)).Thresholds.MinVolume).toBe(4);
    const bad = await runCli(["accounts", "set-guardrails", b.accountId, "--pause-bounce-rate", "150%"], env());
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("expected a rate");
    await runCliJson(["accounts", "set-guardrails", b.accountId, "--pause-bounce-rate", "default", "--min-volume", "default"], env());
    expect((await reputation(b.apiKey)).Thresholds).toMatchObject({ PauseBounceRate: 0.05, MinVolume: 4 });
  });
});
