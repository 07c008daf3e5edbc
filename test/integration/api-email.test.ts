import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addSuppression } from "../../lib/domain/accounts/suppressions";
import { addSenderDomain } from "../../lib/domain/accounts/sender-domains";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { deliverJobHasMessage } from "../support/delivery-helpers";

const valid = {
  From: { name: "Ann", email: "ann@example.com" },
  To: [{ name: "Bob", email: "bob@example.net" }],
  Subject: "Hello",
  ContentType: "HTML",
  HTMLContent: "<p>Hello</p>",
};

describe("POST /email", () => {
  let app: TestApp;
  let key: string;
  let accountId: string;
  const send = (body: unknown, k = key) =>
    app.fetch("/api/v1/email", { method: "POST", headers: bearer(k), body: typeof body === "string" ? body : JSON.stringify(body) });
  const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => app.ctx.database.pool.query(sql, params).then((r) => r.rows as T[]);

  beforeAll(async () => {
    // Workers off: the jobs stay in the queue where the test can see them.
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    const a = await createTestAccount(app.ctx);
    key = a.apiKey;
    accountId = a.accountId;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("accepts a message durably: message, recipients, accepted events and a deliver job exist at the 200", async () => {
    const res = await send({
      ...valid,
      To: [{ name: "Bob", email: "bob@example.net" }, "carol@example.org"],
      CC: [{ email: "dave@example.net" }],
      BCC: ["Eve <eve@example.org>"],
      ReplyTo: [{ name: "Support", email: "support@example.com" }],
      PlainContent: "Hello",
      Tags: ["welcome"],
      Headers: { "X-Campaign": "spring", "X-Mailroom-Track": "none" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await res.json()) as { MessageID: string };
    expect(Object.keys(body)).toEqual(["MessageID"]);
    expect(body.MessageID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const id = body.MessageID;

    const [m] = await q<{ account_id: string; from_domain: string; headers: unknown; content: Record<string, unknown>; tags: string[]; size: number; transport: string }>(
      "SELECT * FROM messages WHERE id = $1",
      [id],
    );
    expect(m!.account_id).toBe(accountId);
    expect(m!.from_domain).toBe("example.com");
    expect(m!.transport).toBe("api");
    expect(m!.tags).toEqual(["welcome"]);
    expect(m!.size).toBeGreaterThan(500);
    expect(m!.headers).toEqual({
      MessageId: id,
      From: [["Ann", "ann@example.com"]],
      ReplyTo: [["Support", "support@example.com"]],
      To: [
        ["Bob", "bob@example.net"],
        ["", "carol@example.org"],
      ],
      Cc: [["", "dave@example.net"]],
      Bcc: [["Eve", "eve@example.org"]],
      Subject: "Hello",
    });
    expect(m!.content).toMatchObject({ tracking: "none", headers: [["X-Campaign", "spring"]], html: "<p>Hello</p>", text: "Hello", contentType: "HTML" });

    const recipients = await q<{ id: number; email: string; kind: string; status: string }>(
      "SELECT id, email, kind, status FROM message_recipients WHERE message_id = $1 ORDER BY id",
      [id],
    );
    expect(recipients.map((r) => [r.email, r.kind, r.status])).toEqual([
      ["bob@example.net", "to", "queued"],
      ["carol@example.org", "to", "queued"],
      ["dave@example.net", "cc", "queued"],
      ["eve@example.org", "bcc", "queued"],
    ]);
    const events = await q<{ type: string; recipient: string; log_level: string }>(
      "SELECT type, recipient, log_level FROM events WHERE message_id = $1 ORDER BY id",
      [id],
    );
    expect(events).toEqual(recipients.map((r) => ({ type: "accepted", recipient: r.email, log_level: "info" })));

    const jobs = await q<{ data: { messages: { messageId: string; recipientIds: number[]; requestId?: string }[] } }>(
      `SELECT data FROM pgboss.job WHERE name = 'deliver' AND ${deliverJobHasMessage("$1")}`,
      [id],
    );
    // One job, with one entry per recipient domain: example.net (bob, dave) and example.org (carol, eve).
    expect(jobs).toHaveLength(1);
    const entries = jobs[0]!.data.messages;
    const byIds = entries.map((e) => e.recipientIds.sort((a, b) => a - b)).sort((a, b) => a[0]! - b[0]!);
    expect(byIds).toEqual([
      [recipients[0]!.id, recipients[2]!.id],
      [recipients[1]!.id, recipients[3]!.id],
    ]);
    expect(entries.map((e) => [e.messageId, e.requestId])).toEqual(entries.map(() => [id, res.headers.get("x-request-id")]));
  });

  it("accepts the liberal variants real clients send", async () => {
    const variants: Record<string, unknown>[] = [
      { ...valid, From: { email: "ann@example.com" }, To: [{ email: "bob@example.net" }] },
      { ...valid, From: { name: null, email: "ann@example.com" }, To: [{ name: "", email: "bob@example.net" }] },
      { ...valid, From: "ann@example.com", To: ["bob@example.net"] },
      { ...valid, From: "Ann <ann@example.com>", To: ["Bob <bob@example.net>"] },
      { ...valid, From: { Name: "Ann", Email: "ann@example.com" }, To: [{ Name: "Bob", Email: "bob@example.net" }] },
      { ...valid, ContentType: "html" },
      { ...valid, ContentType: "text", HTMLContent: undefined, PlainContent: "hi" },
      { ...valid, ContentType: "Text", HTMLContent: undefined, PlainContent: "hi" },
      { ...valid, ContentType: "plain", HTMLContent: undefined, PlainContent: "hi" },
      { ...valid, Attachments: [{ Content: "aGk=", Filename: "a.png", Disposition: "inline", ContentId: 1 }] },
      { ...valid, Attachments: [{ Content: "aGk=", Filename: "a.png", Disposition: "INLINE", ContentID: "logo" }] },
      { ...valid, From: { name: "Zoë", email: "zoë@example.com" }, To: ["用户@例子.广告"] },
    ];
    for (const v of variants) {
      const res = await send(v);
      expect(res.status, JSON.stringify(v)).toBe(200);
    }
  });

  it("reports every validation class with its code, status and Field", async () => {
    const cases: [Record<string, unknown>, number, { Code: number; Field?: string }[]][] = [
      [{ ...valid, From: undefined }, 400, [{ Code: 3, Field: "From" }]],
      [{ ...valid, From: { email: "nope" } }, 400, [{ Code: 23, Field: "From.email" }]],
      [{ ...valid, From: { name: "A\r\nB", email: "ann@example.com" } }, 400, [{ Code: 2, Field: "From.name" }]],
      [{ ...valid, To: [] }, 400, [{ Code: 20, Field: "To" }]],
      [{ ...valid, To: ["a@example.net", "b@example.net", { email: "bad" }] }, 400, [{ Code: 19, Field: "To[2].email" }]],
      [{ ...valid, To: [42] }, 400, [{ Code: 18, Field: "To[0]" }]],
      [{ ...valid, CC: "x" }, 422, [{ Code: 422, Field: "CC" }]],
      [{ ...valid, BCC: {} }, 400, [{ Code: 24, Field: "BCC" }]],
      [{ ...valid, ReplyTo: [{ name: "x" }] }, 400, [{ Code: 5, Field: "ReplyTo[0].email" }]],
      [{ ...valid, Subject: "" }, 400, [{ Code: 8, Field: "Subject" }]],
      [{ ...valid, ContentType: undefined }, 400, [{ Code: 9, Field: "ContentType" }]],
      [{ ...valid, HTMLContent: undefined }, 400, [{ Code: 10, Field: "HTMLContent" }]],
      [{ ...valid, ContentType: "Text", HTMLContent: undefined }, 400, [{ Code: 11, Field: "PlainContent" }]],
      [{ ...valid, Tags: [""] }, 422, [{ Code: 422, Field: "Tags[0]" }]],
      [{ ...valid, Headers: { Subject: "x" } }, 422, [{ Code: 422, Field: "Headers.Subject" }]],
      [{ ...valid, Attachments: [{ Content: "###", Filename: "a" }] }, 422, [{ Code: 422, Field: "Attachments[0].Content" }]],
      [{ ...valid, From: { email: "ann@unverified.test" } }, 403, [{ Code: 32, Field: "From.email" }]],
    ];
    for (const [body, status, errors] of cases) {
      const res = await send(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      const json = (await res.json()) as { Errors: { Code: number; Message: string; Field?: string }[] };
      expect(json.Errors.map(({ Code, Field }) => ({ Code, ...(Field !== undefined && { Field }) }))).toEqual(errors);
      expect(json.Errors.every((e) => typeof e.Message === "string" && e.Message.length > 0)).toBe(true);
    }
  });

  it("refuses Sender and Resent-* in Headers like From (422, Field Headers.<name>), nothing stored; other custom headers still pass", async () => {
    const before = await q<{ n: number }>("SELECT count(*)::int AS n FROM messages WHERE account_id = $1", [accountId]);
    for (const name of ["From", "Sender", "Resent-From", "Resent-Sender", "resent-from", "SENDER", "Resent-To", "Resent-Message-ID"]) {
      const res = await send({ ...valid, Headers: { "X-Order": "1", [name]: "Boss <ceo@other-bank.test>" } });
      expect(res.status, name).toBe(422);
      expect(await res.json()).toEqual({ Errors: [{ Code: 422, Message: "Invalid request parameters", Field: `Headers.${name}` }] });
    }
    const both = await send({ ...valid, Headers: { Sender: "a@other.test", "Resent-From": "b@other.test" } });
    expect(((await both.json()) as { Errors: { Field: string }[] }).Errors.map((e) => e.Field)).toEqual(["Headers.Sender", "Headers.Resent-From"]);
    const after = await q<{ n: number }>("SELECT count(*)::int AS n FROM messages WHERE account_id = $1", [accountId]);
    expect(after[0]!.n).toBe(before[0]!.n);

    const ok = await send({ ...valid, Headers: { "X-Order": "1", "X-Sender": "shop", "X-Resent-From": "x", "X-Mailroom-Track": "none" } });
    expect(ok.status).toBe(200);
    const { MessageID } = (await ok.json()) as { MessageID: string };
    const [row] = await q<{ content: { headers: [string, string][] } }>("SELECT content FROM messages WHERE id = $1", [MessageID]);
    expect(row!.content.headers).toEqual([
      ["X-Order", "1"],
      ["X-Sender", "shop"],
      ["X-Resent-From", "x"],
    ]);
  });

  it("reports all errors together in field order, with the status of the first", async () => {
    const res = await send({ From: { email: "x" }, To: "nope", Subject: 1, ContentType: "HTML" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      Errors: [
        { Code: 23, Message: "Invalid from email address format", Field: "From.email" },
        { Code: 20, Message: "No recipient is set, or the recipient count exceeds the allowed count", Field: "To" },
        { Code: 422, Message: "Invalid request parameters", Field: "Subject" },
        { Code: 10, Message: "Missing HTMLContent", Field: "HTMLContent" },
      ],
    });
  });

  it("refuses a From domain that is pending verification (32, 403)", async () => {
    await addSenderDomain(app.ctx.database, accountId, "pending.test");
    const res = await send({ ...valid, From: "a@pending.test" });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ Errors: [{ Code: 32, Message: "Domain is not activated", Field: "From.email" }] });
  });

  it("refuses another account's verified domain", async () => {
    await createTestAccount(app.ctx, { name: "other", domain: "other-owner.test" });
    const res = await send({ ...valid, From: "a@other-owner.test" });
    expect(res.status).toBe(403);
  });

  it("never answers 500 for garbage bodies; malformed JSON and non-objects are 422", async () => {
    const garbage = [
      "",
      "{",
      "null",
      "[]",
      "42",
      '"str"',
      "{\"From\":",
      "\u0000\u0001",
      Buffer.from([0xff, 0xfe, 0x7b, 0x7d]).toString("latin1"),
      '{"__proto__":{"From":"a@example.com"},"constructor":{"prototype":{"x":1}}}',
      "[".repeat(100_000) + "]".repeat(100_000),
      JSON.stringify({ ...valid, To: Array.from({ length: 100_000 }, () => 1) }),
      JSON.stringify({ ...valid, Attachments: Array.from({ length: 10_000 }, () => ({})) }),
      JSON.stringify({ ...valid, Subject: 1e308, HTMLContent: -0, Tags: [Number.MAX_VALUE] }),
      '{"From":"a@example.com","Tags":[1e400],"Subject":123456789012345678901234567890}',
    ];
    for (const body of garbage) {
      const res = await send(body);
      expect(res.status, body.slice(0, 40)).not.toBe(500);
      expect([400, 422]).toContain(res.status);
      const json = (await res.json()) as { Errors: unknown[] };
      expect(json.Errors.length).toBeGreaterThan(0);
      expect(json.Errors.length).toBeLessThanOrEqual(100);
    }
    const invalidUtf8 = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(key), body: Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]) });
    expect(invalidUtf8.status).toBe(422);
  });

  it("refuses a body over 15 MiB with 422, declared or chunked", async () => {
    const big = JSON.stringify({ ...valid, HTMLContent: "x".repeat(15 * 1024 * 1024) });
    const res = await send(big);
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ Errors: [{ Code: 422, Message: "Invalid request parameters" }] });
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 16; i++) controller.enqueue(new Uint8Array(1024 * 1024).fill(0x20));
        controller.close();
      },
    });
    const chunked = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(key), body: chunks, duplex: "half" } as RequestInit);
    expect(chunked.status).toBe(422);
  });

  it("refuses decoded content over 10 MiB with 422", async () => {
    const res = await send({ ...valid, Attachments: [{ Content: Buffer.alloc(10 * 1024 * 1024).toString("base64"), Filename: "big.bin" }] });
    expect(res.status).toBe(422);
  });

  it("accepts 10 MiB of content", async () => {
    const res = await send({ ...valid, HTMLContent: "<p>x</p>", Attachments: [{ Content: Buffer.alloc(10 * 1024 * 1024 - 8).toString("base64"), Filename: "big.bin" }] });
    expect(res.status).toBe(200);
  });

  it("drops suppressed recipients (logged as rejected) and refuses when none remain (14, 422)", async () => {
    const database = app.ctx.database;
    await addSuppression(database, { accountId, email: "gone@example.net", reason: "hard-bounce" });
    await addSuppression(database, { accountId, email: "unsub@example.net", reason: "unsubscribe" });

    const res = await send({ ...valid, To: ["Gone@Example.net", "ok@example.net"], CC: ["unsub@example.net"] });
    expect(res.status).toBe(200);
    const { MessageID } = (await res.json()) as { MessageID: string };
    const events = await q<{ type: string; recipient: string; reason: string; log_level: string }>(
      "SELECT type, recipient, reason, log_level FROM events WHERE message_id = $1 ORDER BY id",
      [MessageID],
    );
    expect(events).toEqual([
      { type: "rejected", recipient: "Gone@Example.net", reason: "Recipient is on the suppression list (hard-bounce)", log_level: "warn" },
      { type: "accepted", recipient: "ok@example.net", reason: "", log_level: "info" },
      { type: "rejected", recipient: "unsub@example.net", reason: "Recipient is on the suppression list (unsubscribe)", log_level: "warn" },
    ]);
    const statuses = await q<{ email: string; status: string }>("SELECT email, status FROM message_recipients WHERE message_id = $1 ORDER BY id", [MessageID]);
    expect(statuses.map((s) => s.status)).toEqual(["suppressed", "queued", "suppressed"]);
    const jobs = await q<{ data: { messages: { recipientIds: number[] }[] } }>(
      `SELECT data FROM pgboss.job WHERE name = 'deliver' AND ${deliverJobHasMessage("$1")}`,
      [MessageID],
    );
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.data.messages.map((e) => e.recipientIds.length)).toEqual([1]);

    const before = await q<{ n: number }>("SELECT count(*)::int AS n FROM messages");
    const all = await send({ ...valid, To: ["gone@example.net"], BCC: ["UNSUB@example.net"] });
    expect(all.status).toBe(422);
    expect(await all.json()).toEqual({ Errors: [{ Code: 14, Message: "Recipient email is suppressed" }] });
    expect(await q("SELECT count(*)::int AS n FROM messages")).toEqual(before);
  });

  it("counts a repeated address once", async () => {
    const res = await send({ ...valid, To: ["dup@example.net", "DUP@example.net"], CC: ["dup@example.net"] });
    expect(res.status).toBe(200);
    const { MessageID } = (await res.json()) as { MessageID: string };
    expect(await q("SELECT email, kind FROM message_recipients WHERE message_id = $1", [MessageID])).toEqual([{ email: "dup@example.net", kind: "to" }]);
  });

  it("sends no X-RateLimit headers for an unlimited plan", async () => {
    const res = await send(valid);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });
});
