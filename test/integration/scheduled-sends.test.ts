import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestAccount } from "../support/fixtures";
import { eventsOf, expectNoRecipientLeftQueued, simpleEmail, waitFor, waitForEvent } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Scheduled sends (docs/contract.md §15.1–§15.3, docs/adr/0125) through the
 * real API, the real release loop and real SMTP delivery to the sandbox MX.
 */
describe("scheduled sends", () => {
  let app: TestApp;
  let apiKey: string;
  let otherKey: string;
  beforeAll(async () => {
    app = await startTestApp();
    apiKey = (await createTestAccount(app.ctx)).apiKey;
    otherKey = (await createTestAccount(app.ctx, { name: "Other", domain: "other.example" })).apiKey;
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
  });

  const now = () => Math.floor(Date.now() / 1000);
  const send = (body: Record<string, unknown>, key = apiKey) =>
    app.fetch("/api/v1/email", { method: "POST", headers: bearer(key), body: JSON.stringify(body) });
  const schedule = async (id: string, key = apiKey) => {
    const res = await app.fetch(`/api/v1/email/${id}`, { headers: bearer(key) });
    return { status: res.status, body: (await res.json()) as { Status?: string; SendAt?: number; Errors?: { Code: number }[] } };
  };
  const captures = async (id: string) =>
    (await app.ctx.database.pool.query<{ received_at: Date }>("SELECT received_at FROM sandbox_messages WHERE mailroom_message_id = $1", [id])).rows;
  const accept = async (body: Record<string, unknown>) => {
    const res = await send(body);
    const json = (await res.json()) as { MessageID: string };
    expect(res.status, JSON.stringify(json)).toBe(200);
    return json.MessageID;
  };

  it("a message scheduled 5 s ahead is accepted at once and delivered after its time, not before", async () => {
    const sendAt = now() + 5;
    const id = await accept(simpleEmail("later@example.org", { SendAt: sendAt }));
    // Accepted now: its `accepted` event is logged at once, and it shows as scheduled.
    expect((await eventsOf(app.ctx, id)).map((e) => e.type)).toEqual(["accepted"]);
    expect(await schedule(id)).toEqual({ status: 200, body: { MessageID: id, Status: "scheduled", SendAt: sendAt } });
    const { rows: jobs } = await app.ctx.database.pool.query("SELECT 1 FROM pgboss.job WHERE name = 'deliver' AND data::text LIKE $1", [`%${id}%`]);
    expect(jobs).toHaveLength(0);
    // Still not delivered 3 s later.
    await new Promise((r) => setTimeout(r, 3000));
    expect(await captures(id)).toHaveLength(0);
    await waitForEvent(app.ctx, id, "delivered", "later@example.org", 20_000);
    const [capture] = await captures(id);
    expect(capture!.received_at.getTime()).toBeGreaterThanOrEqual(sendAt * 1000);
    expect((await schedule(id)).body).toEqual({ MessageID: id, Status: "sent", SendAt: sendAt });
  });

  it("takes an ISO 8601 time with an offset; PATCH moves it, and a time in the past sends it now", async () => {
    const first = now() + 3600;
    const id = await accept(simpleEmail("moved@example.org", { SendAt: new Date(first * 1000).toISOString() }));
    expect((await schedule(id)).body.SendAt).toBe(first);
    const later = now() + 7200;
    const patch = (SendAt: unknown, key = apiKey) =>
      app.fetch(`/api/v1/email/${id}`, { method: "PATCH", headers: bearer(key), body: JSON.stringify({ SendAt }) });
    const moved = await patch(new Date(later * 1000).toISOString().replace("Z", "+00:00"));
    expect(moved.status).toBe(200);
    expect(await moved.json()).toEqual({ MessageID: id, Status: "scheduled", SendAt: later });
    // Malformed or too far: 422 naming SendAt, nothing changed.
    for (const bad of ["tomorrow", now() + 31 * 86400, "2026-12-01T08:00:00", true]) {
      const res = await patch(bad);
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({ Errors: [{ Code: 422, Message: "Invalid request parameters", Field: "SendAt" }] });
    }
    expect((await schedule(id)).body.SendAt).toBe(later);
    // Another account cannot see or move it.
    expect((await patch(now() + 60, otherKey)).status).toBe(404);
    // The past means now: released within about a second, then delivered.
    const res = await patch(now() - 60);
    expect(res.status).toBe(200);
    await waitForEvent(app.ctx, id, "delivered", "moved@example.org", 20_000);
    // Once delivery has started, PATCH and cancel are 409 with the envelope.
    const again = await patch(now() + 60);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { Errors: { Code: number }[] }).Errors[0]!.Code).toBe(409);
    const cancel = await app.fetch(`/api/v1/email/${id}/cancel`, { method: "POST", headers: bearer(apiKey) });
    expect(cancel.status).toBe(409);
  });

  it("cancel gives every recipient its final failed event and a webhook notification; then 409", async () => {
    // A webhook for bounces (failed events notify it, docs/contract.md §10).
    const hits: unknown[] = [];
    const receiver: Server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        hits.push(JSON.parse(body));
        res.end("ok");
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
    const port = (receiver.address() as { port: number }).port;
    const hook = await app.fetch("/api/v1/webhooks", {
      method: "POST",
      headers: bearer(apiKey),
      body: JSON.stringify({ Event: "bounced", WebhookURL: `http://127.0.0.1:${port}/hook` }),
    });
    expect(hook.status).toBe(200);
    try {
      const id = await accept({
        ...simpleEmail(["c1@example.org", "c2@example.net"]),
        CC: [{ email: "c3@example.org" }],
        SendAt: now() + 600,
      });
      const res = await app.fetch(`/api/v1/email/${id}/cancel`, { method: "POST", headers: bearer(apiKey) });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ MessageID: id, Status: "cancelled" });
      const failed = (await eventsOf(app.ctx, id)).filter((e) => e.type === "failed");
      expect(failed.map((e) => e.recipient).sort()).toEqual(["c1@example.org", "c2@example.net", "c3@example.org"]);
      expect(failed.every((e) => e.reason === "cancelled before sending")).toBe(true);
      const { rows } = await app.ctx.database.pool.query("SELECT status FROM message_recipients WHERE message_id = $1", [id]);
      expect(rows.every((r) => r.status === "failed")).toBe(true);
      // Each failed event reaches the webhook.
      await waitFor("three notifications", async () => (hits.length >= 3 ? true : undefined), 20_000);
      expect(JSON.stringify(hits)).toContain("cancelled before sending");
      expect((await schedule(id)).body.Status).toBe("cancelled");
      // Cancelled: both answer 409 from now on, and nothing is ever sent.
      expect((await app.fetch(`/api/v1/email/${id}/cancel`, { method: "POST", headers: bearer(apiKey) })).status).toBe(409);
      expect(
        (await app.fetch(`/api/v1/email/${id}`, { method: "PATCH", headers: bearer(apiKey), body: JSON.stringify({ SendAt: now() }) })).status,
      ).toBe(409);
      // Its SendAt is 10 minutes away, so a capture now would come from a deliver job wrongly
      // left by the cancel, which the sandbox delivers within milliseconds: 500 ms would see it.
      await new Promise((r) => setTimeout(r, 500));
      expect(await captures(id)).toHaveLength(0);
    } finally {
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  });

  it("refuses a SendAt over 30 days ahead or malformed with 422 Field SendAt, and sends a past one now", async () => {
    for (const SendAt of [now() + 30 * 86400 + 120, "next week", -5, { at: 1 }, "2026-13-01T00:00:00Z"]) {
      const res = await send(simpleEmail("far@example.org", { SendAt }));
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({ Errors: [{ Code: 422, Message: "Invalid request parameters", Field: "SendAt" }] });
    }
    // 30 days ahead exactly is accepted.
    const edge = await accept(simpleEmail("edge@example.org", { SendAt: now() + 30 * 86400 - 5 }));
    expect((await schedule(edge)).body.Status).toBe("scheduled");
    await app.fetch(`/api/v1/email/${edge}/cancel`, { method: "POST", headers: bearer(apiKey) });
    // A validation error comes first, SendAt's after it.
    const both = await send({ ...simpleEmail("x@example.org"), Subject: "", SendAt: "soon" });
    expect(((await both.json()) as { Errors: { Code: number; Field?: string }[] }).Errors.map((e) => [e.Code, e.Field])).toEqual([
      [8, "Subject"],
      [422, "SendAt"],
    ]);
    // In the past: sent at once, like a message without SendAt.
    const past = await accept(simpleEmail("past@example.org", { SendAt: now() - 3600 }));
    await waitForEvent(app.ctx, past, "delivered", "past@example.org", 20_000);
    expect((await schedule(past)).body.Status).toBe("sent");
  });

  it("another account's message, an unknown id or one that is no UUID is 404 on every route", async () => {
    const id = await accept(simpleEmail("mine@example.org", { SendAt: now() + 600 }));
    for (const [path, method] of [
      [`/api/v1/email/${id}`, "GET"],
      [`/api/v1/email/${id}/cancel`, "POST"],
      [`/api/v1/email/${crypto.randomUUID()}`, "GET"],
      [`/api/v1/email/not-a-uuid`, "GET"],
      [`/api/v1/email/not-a-uuid/cancel`, "POST"],
    ] as const) {
      const res = await app.fetch(path, { method, headers: bearer(path.includes(id) ? otherKey : apiKey) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(((await res.json()) as { Errors: { Code: number }[] }).Errors[0]!.Code).toBe(404);
    }
    // The list shows the account's own scheduled messages only.
    const mine = (await (await app.fetch("/api/v1/email/scheduled", { headers: bearer(apiKey) })).json()) as { Messages: { MessageID: string }[] };
    expect(mine.Messages.map((m) => m.MessageID)).toContain(id);
    const theirs = (await (await app.fetch("/api/v1/email/scheduled", { headers: bearer(otherKey) })).json()) as { Messages: unknown[] };
    expect(theirs.Messages).toEqual([]);
    expect((await app.fetch(`/api/v1/email/${id}/cancel`, { method: "POST", headers: bearer(apiKey) })).status).toBe(200);
  });

  it("cancel racing the release: each message ends either cancelled or delivered, never both", async () => {
    const at = now() + 2;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await accept(simpleEmail(`race${i}@example.org`, { SendAt: at })));
    // Cancel every one of them around its time, while the release loop takes them.
    while (Date.now() < at * 1000 - 150) await new Promise((r) => setTimeout(r, 20));
    const answers = await Promise.all(
      ids.map(async (id, i) => {
        await new Promise((r) => setTimeout(r, i * 20));
        return (await app.fetch(`/api/v1/email/${id}/cancel`, { method: "POST", headers: bearer(apiKey) })).status;
      }),
    );
    expect(answers.every((s) => s === 200 || s === 409)).toBe(true);
    for (const [i, id] of ids.entries()) {
      const final = await waitFor(`final event of ${id}`, async () => (await eventsOf(app.ctx, id)).find((e) => e.type !== "accepted"), 20_000);
      const events = (await eventsOf(app.ctx, id)).filter((e) => e.type !== "accepted");
      expect(events).toHaveLength(1);
      if (answers[i] === 200) {
        expect(final.reason).toBe("cancelled before sending");
        expect(await captures(id)).toHaveLength(0);
      } else {
        expect(final.type).toBe("delivered");
      }
    }
  }, 60_000);
});
