import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setAccountLimits } from "../../lib/domain/accounts/accounts";
import { addSuppression } from "../../lib/domain/accounts/suppressions";
import { bearer, createTestAccount } from "../support/fixtures";
import { simpleEmail } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * POST /email/batch (docs/contract.md §15.4, docs/adr/0126) through the real
 * API on a real PostgreSQL. Acceptance only: the workers are off, so what is
 * measured and counted is the batch's own work.
 */

type Item = { MessageID?: string; Errors?: { Code: number; Message: string; Field?: string }[] };

const INVALID = 422;
describe("POST /email/batch", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  const now = () => Math.floor(Date.now() / 1000);
  const batch = (apiKey: string, body: unknown, headers: Record<string, string> = {}) =>
    app.fetch("/api/v1/email/batch", { method: "POST", headers: { ...bearer(apiKey), ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
  const single = async (apiKey: string, body: unknown) => {
    const res = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(apiKey), body: JSON.stringify(body) });
    return (await res.json()) as Item;
  };

  it("500 items, some refused: the answer keeps their order, each refusal is POST /email's, limits and suppression count per message, one transaction", async () => {
    const a = await createTestAccount(app.ctx, { name: "batch" });
    await setAccountLimits(app.ctx.database, a.accountId, { perMinute: 10_000, perHour: 10_000, perDay: 450 });
    app.ctx.apiKeyAuth.results.clear(); // as the dashboard does after changing an account: this process forgets its cached keys
    await addSuppression(app.ctx.database, { accountId: a.accountId, email: "gone@example.net", reason: "complaint" });
    // A per-item variety; the valid ones (460) pass the day's 450 in the last items.
    const items = Array.from({ length: 500 }, (_, i) => {
      const kind = i % 50;
      if (kind === 7) return { ...simpleEmail(`b${i}@example.org`), Subject: "" };
      if (kind === 19) return { ...simpleEmail(`b${i}@example.org`), From: { email: "shop@unverified.example" } };
      if (kind === 33) return simpleEmail("gone@example.net");
      if (kind === 41) return simpleEmail(`b${i}@example.org`, { SendAt: "someday" });
      // One suppressed recipient beside a deliverable one: accepted, counted once.
      if (kind === 3) return simpleEmail([`b${i}@example.org`, "gone@example.net"]);
      return simpleEmail(`b${i}@example.org`, { Subject: `item ${i}` });
    });
    const res = await batch(a.apiKey, items);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Item[];
    expect(answer).toHaveLength(500);

    // Each refusal is what POST /email answers for the same request (limits aside).
    const verdictOf = async (i: number) => {
      const kind = i % 50;
      if (kind === 7 || kind === 19 || kind === 33 || kind === 41) return (await single(a.apiKey, items[i])).Errors;
      return undefined;
    };
    let valid = 0;
    const accepted: string[] = [];
    for (const [i, item] of answer.entries()) {
      const expected = await verdictOf(i);
      if (expected) {
        expect(item, `item ${i}`).toEqual({ Errors: expected });
        continue;
      }
      valid++;
      if (valid <= 450) {
        expect(item.MessageID, `item ${i}`).toMatch(/^[0-9a-f-]{36}$/);
        accepted.push(item.MessageID!);
      } else {
        expect(item, `item ${i}`).toEqual({ Errors: [{ Code: 17, Message: "Email quota reached" }] });
      }
    }
    expect(valid).toBe(460);
    expect(new Set(accepted).size).toBe(450);
    // The spot checks above used POST /email: its refusals are these.
    expect(answer[7]!.Errors![0]).toMatchObject({ Code: 8, Field: "Subject" });
    expect(answer[19]!.Errors).toEqual([{ Code: 32, Message: "Domain is not activated", Field: "From.email" }]);
    expect(answer[33]!.Errors).toEqual([{ Code: 14, Message: "Recipient email is suppressed" }]);
    expect(answer[41]!.Errors).toEqual([{ Code: INVALID, Message: "Invalid request parameters", Field: "SendAt" }]);

    // The accepted messages, their subjects in order, committed by one transaction (one xmin).
    const pool = app.ctx.database.pool;
    const { rows } = await pool.query<{ id: string; subject: string; x: string }>(
      "SELECT id, subject, xmin::text AS x FROM messages WHERE id = ANY($1::uuid[])",
      [accepted],
    );
    expect(rows).toHaveLength(450);
    expect(new Set(rows.map((r) => r.x)).size).toBe(1);
    const subjectOf = new Map(rows.map((r) => [r.id, r.subject]));
    answer.forEach((item, i) => {
      if (item.MessageID && i % 50 !== 3) expect(subjectOf.get(item.MessageID)).toBe(`item ${i}`);
    });
    // The day window counts the accepted messages' deliverable recipients: 450.
    const { rows: used } = await pool.query<{ n: number }>(
      "SELECT max(used)::int AS n FROM limit_counters WHERE api_key_id = $1 AND window_kind = 'day'",
      [a.apiKeyId],
    );
    expect(used[0]!.n).toBe(450);
    // The suppressed recipient of the mixed items was rejected, the other accepted.
    const mixed = answer[3]!.MessageID!;
    const { rows: ev } = await pool.query("SELECT type, recipient FROM events WHERE message_id = $1 ORDER BY recipient", [mixed]);
    expect(ev).toEqual([
      { type: "accepted", recipient: "b3@example.org" },
      { type: "rejected", recipient: "gone@example.net" },
    ]);
  }, 120_000);

  it("an Idempotency-Key covers the whole batch: the same body replays the same array, another body is 422", async () => {
    const a = await createTestAccount(app.ctx, { name: "idempotent batch" });
    const items = [simpleEmail("i1@example.org"), { ...simpleEmail("i2@example.org"), To: [] }, simpleEmail("i3@example.org", { SendAt: now() + 3600 })];
    const key = { "Idempotency-Key": "batch-key-1" };
    const first = await batch(a.apiKey, items, key);
    expect(first.status).toBe(200);
    const body = await first.text();
    const answer = JSON.parse(body) as Item[];
    expect(answer.map((x) => (x.MessageID ? "id" : x.Errors![0]!.Code))).toEqual(["id", 20, "id"]);
    const count = async () => (await app.ctx.database.pool.query("SELECT count(*)::int AS n FROM messages WHERE account_id = $1", [a.accountId])).rows[0].n;
    expect(await count()).toBe(2);

    const again = await batch(a.apiKey, items, key);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(body);
    expect(await count()).toBe(2);

    // Concurrent retries of a new batch: one acceptance, the same answer to all.
    const key2 = { "Idempotency-Key": "batch-key-2" };
    const answers = await Promise.all([1, 2, 3].map(async () => (await batch(a.apiKey, [simpleEmail("c@example.org")], key2)).text()));
    expect(new Set(answers).size).toBe(1);
    expect(await count()).toBe(3);

    const other = await batch(a.apiKey, [simpleEmail("changed@example.org")], key);
    expect(other.status).toBe(422);
    expect(await other.json()).toEqual({ Errors: [{ Code: 422, Message: "Invalid request parameters", Field: "Idempotency-Key" }] });

    // A batch whose items are all refused keeps its answer too.
    const key3 = { "Idempotency-Key": "batch-key-3" };
    const refused = await (await batch(a.apiKey, [{ ...simpleEmail("r@example.org"), Subject: "" }], key3)).text();
    const replay = await batch(a.apiKey, [{ ...simpleEmail("r@example.org"), Subject: "" }], key3);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.text()).toBe(refused);
  });

  it("an item with SendAt is scheduled; a body that is not an array of 1 to 500 items, or over 50 MB, is 422", async () => {
    const a = await createTestAccount(app.ctx, { name: "shapes" });
    const at = now() + 600;
    const [item] = (await (await batch(a.apiKey, [simpleEmail("s@example.org", { SendAt: at })])).json()) as Item[];
    const schedule = await (await app.fetch(`/api/v1/email/${item!.MessageID}`, { headers: bearer(a.apiKey) })).json();
    expect(schedule).toEqual({ MessageID: item!.MessageID, Status: "scheduled", SendAt: at });

    const envelope = { Errors: [{ Code: 422, Message: "Invalid request parameters" }] };
    for (const body of [{}, [], Array.from({ length: 501 }, () => simpleEmail("x@example.org")), "[{", "null"]) {
      const res = await batch(a.apiKey, body);
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual(envelope);
    }
    // A non-object item is refused alone.
    const mixed = (await (await batch(a.apiKey, [42, simpleEmail("ok@example.org")])).json()) as Item[];
    expect(mixed[0]).toEqual(envelope);
    expect(mixed[1]!.MessageID).toBeDefined();
    // Over 50 MB by Content-Length: refused before the body is read (nothing of it is sent here).
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${app.url}/api/v1/email/batch`, {
        method: "POST",
        headers: { ...bearer(a.apiKey), "Content-Length": String(50 * 1024 * 1024 + 1) },
      });
      req.on("response", (r) => {
        let text = "";
        r.on("data", (c: Buffer) => (text += c.toString()));
        r.on("end", () => resolve({ status: r.statusCode!, body: text }));
      });
      req.on("error", reject);
      req.flushHeaders();
    });
    expect(refused.status).toBe(422);
    expect(JSON.parse(refused.body)).toEqual(envelope);
  });
});
