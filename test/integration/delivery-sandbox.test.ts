import { randomBytes } from "node:crypto";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestAccount } from "../support/fixtures";
import { deliverJobHasMessage, eventsOf, expectNoRecipientLeftQueued, sendViaApi, simpleEmail, waitForEvent } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

describe("sandbox delivery: every sandbox address and its event", () => {
  let app: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    app = await startTestApp({
      MAILROOM_DELIVERY_RETRY_SCHEDULE: "500ms,500ms",
      MAILROOM_DELIVERY_MAX_AGE: "3s",
      MAILROOM_SANDBOX_COMPLAINT_DELAY: "200ms",
    });
    apiKey = (await createTestAccount(app.ctx)).apiKey;
  });
  afterAll(async () => {
    // Every recipient this file accepted reached a final event (none left `queued`, none stranded).
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
  });

  it("delivers to an ordinary address, captures it and reports the server's reply", async () => {
    const id = await sendViaApi(app, apiKey, simpleEmail("ann@example.org"));
    const delivered = await waitForEvent(app.ctx, id, "delivered", "ann@example.org");
    expect(delivered.reason).toMatch(/^250 2\.0\.0 Ok: queued as sandbox-\d+$/);
    const { rows } = await app.ctx.database.pool.query("SELECT rcpt_to, mailroom_message_id, size FROM sandbox_messages WHERE mailroom_message_id = $1", [id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].rcpt_to).toEqual(["ann@example.org"]);
    const { rows: msg } = await app.ctx.database.pool.query("SELECT size FROM messages WHERE id = $1", [id]);
    expect(msg[0].size).toBeGreaterThan(500);
    // The spec's event log shows it too.
    const res = await app.fetch(`/api/v1/events?MessageID=${id}&Event=delivered`, { headers: bearer(apiKey) });
    const body = (await res.json()) as { TotalRecords: number; Events: { Recipient: string; Reason: string }[] };
    expect(body.TotalRecords).toBe(1);
    expect(body.Events[0]!.Reason).toBe(delivered.reason);
    // Its delivery job is completed (not left active to expire and run again), by the very transaction
    // that recorded the outcome: rows written by one transaction carry the same xmin (docs/adr/0022).
    const { rows: job } = await app.ctx.database.pool.query<{ state: string; same_transaction: boolean }>(
      `SELECT j.state, j.xmin::text = r.xmin::text AS same_transaction
         FROM pgboss.job j, message_recipients r
        WHERE j.name = 'deliver' AND r.message_id = $1 AND ${deliverJobHasMessage("r.message_id")}`,
      [id],
    );
    expect(job).toEqual([{ state: "completed", same_transaction: true }]);
  });

  it("captures a large message whole (its bytes sent as binary parameters, not inside JSON)", async () => {
    const file = randomBytes(600_000);
    const text = `Large ${"sandbox body ".repeat(30_000)}end`;
    const id = await sendViaApi(app, apiKey, {
      ...simpleEmail("large@example.org"),
      PlainContent: text,
      Attachments: [{ Content: file.toString("base64"), Filename: "f.bin" }],
    });
    await waitForEvent(app.ctx, id, "delivered", "large@example.org");
    const { rows } = await app.ctx.database.pool.query<{ raw: Buffer; size: number; subject: string }>(
      "SELECT raw, size, subject FROM sandbox_messages WHERE mailroom_message_id = $1",
      [id],
    );
    expect(rows).toHaveLength(1);
    const { raw, size, subject } = rows[0]!;
    expect(raw.length).toBe(size);
    expect(size).toBeGreaterThan(256 * 1024);
    expect(raw.toString("latin1")).toMatch(/^Return-Path: <bounces\+[^>]+>\r\n/);
    expect(subject).toBe(simpleEmail("large@example.org").Subject);
    const parsed = await simpleParser(raw);
    expect(parsed.text?.trim()).toBe(text);
    expect(parsed.attachments[0]!.content.equals(file)).toBe(true);
  });

  it("bounce@ fails with 5.1.1 and suppresses the address", async () => {
    const id = await sendViaApi(app, apiKey, simpleEmail("bounce@example.org"));
    const failed = await waitForEvent(app.ctx, id, "failed", "bounce@example.org");
    expect(failed.reason).toContain("550 5.1.1");
    expect(failed.details).toMatchObject({ smtpCode: 550, enhancedCode: "5.1.1", bounceType: "hard" });
    const { rows } = await app.ctx.database.pool.query("SELECT reason FROM suppressions WHERE email = 'bounce@example.org'");
    expect(rows[0]?.reason).toBe("hard-bounce");
    // Sending again: the only recipient is suppressed → code 14.
    const res = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(apiKey), body: JSON.stringify(simpleEmail("bounce@example.org")) });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { Errors: { Code: number }[] }).Errors[0]!.Code).toBe(14);
  });

  it("blocked@ is rejected with 5.7.1 and not suppressed", async () => {
    const id = await sendViaApi(app, apiKey, simpleEmail("blocked@example.org"));
    const rejected = await waitForEvent(app.ctx, id, "rejected", "blocked@example.org");
    expect(rejected.reason).toContain("550 5.7.1");
    expect(rejected.details).toMatchObject({ enhancedCode: "5.7.1", bounceType: "policy" });
    const { rowCount } = await app.ctx.database.pool.query("SELECT 1 FROM suppressions WHERE email = 'blocked@example.org'");
    expect(rowCount).toBe(0);
  });

  it("defer@ is retried with backoff, shown as delivery attempts, then fails", async () => {
    const id = await sendViaApi(app, apiKey, simpleEmail("defer@example.org"));
    const failed = await waitForEvent(app.ctx, id, "failed", "defer@example.org");
    expect(failed.reason).toMatch(/gave up after \d+ attempts: 451 4\.7\.1/);
    const { rows } = await app.ctx.database.pool.query("SELECT outcome, smtp_code, enhanced_code FROM delivery_attempts WHERE message_id = $1 ORDER BY id", [id]);
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows.every((r) => r.smtp_code === 451 && r.enhanced_code === "4.7.1" && r.outcome === "deferred")).toBe(true);
    const types = (await eventsOf(app.ctx, id)).map((e) => e.type);
    expect(types).toEqual(["accepted", "failed"]);
  });

  it("complaint@ is delivered, then an ARF complaint comes back through inbound SMTP", async () => {
    const id = await sendViaApi(app, apiKey, simpleEmail("complaint@example.org"));
    await waitForEvent(app.ctx, id, "delivered", "complaint@example.org");
    const complained = await waitForEvent(app.ctx, id, "complained", "complaint@example.org");
    expect(complained.reason).toMatch(/Feedback report \(abuse\)/);
    const { rows } = await app.ctx.database.pool.query("SELECT reason FROM suppressions WHERE email = 'complaint@example.org'");
    expect(rows[0]?.reason).toBe("complaint");
  });

  it("delivers each recipient of a message separately, BCC included, with one final event each", async () => {
    const id = await sendViaApi(app, apiKey, {
      ...simpleEmail(["a1@example.org", "bounce+x@example.org"]),
      CC: [{ name: "C", email: "c1@example.net" }],
      BCC: [{ name: "B", email: "b1@example.org" }],
    });
    for (const r of ["a1@example.org", "c1@example.net", "b1@example.org"]) await waitForEvent(app.ctx, id, "delivered", r);
    await waitForEvent(app.ctx, id, "failed", "bounce+x@example.org");
    const events = await eventsOf(app.ctx, id);
    expect(events.filter((e) => e.type !== "accepted")).toHaveLength(4);
    const { rows } = await app.ctx.database.pool.query("SELECT raw FROM sandbox_messages WHERE mailroom_message_id = $1", [id]);
    expect(rows).toHaveLength(3);
    for (const r of rows) {
      const raw = (r.raw as Buffer).toString();
      const head = raw.slice(0, raw.indexOf("\r\n\r\n"));
      expect(head).not.toMatch(/^Bcc:/im);
      expect(head).not.toContain("b1@example.org");
    }
  });
});
