import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorEnvelopeSchema } from "../../lib/contract/errors";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Property-based fuzzing of the public endpoints. Whatever the
 * input, the answer is never a 500, and every non-200 answer is the JSON
 * error envelope. FUZZ_RUNS sets the number of cases per property (CI: the
 * default; a longer run: FUZZ_RUNS=20000).
 */
const runs = Number(process.env.FUZZ_RUNS ?? 1000);
// Generous: thousands of real HTTP requests on a busy 2-core machine.
const FUZZ_TIMEOUT_MS = 600_000;

const fieldNames = [
  "From", "To", "CC", "BCC", "ReplyTo", "Subject", "ContentType", "HTMLContent", "PlainContent",
  "Tags", "Headers", "Attachments", "name", "email", "Name", "Email", "Content", "Filename", "Type",
  "Disposition", "ContentId", "ContentID", "__proto__", "constructor", "prototype", "toString",
];
const nastyStrings = fc.oneof(
  fc.string(),
  fc.constantFrom(
    "", " ", "a@b", "a@b.c", "ann@example.org", "Ann <ann@example.org>", "x\r\nBcc: evil@example.net",
    "\u0000", "\ud800", "💌@例え.テスト", "=?utf-8?q?x?=", "HTML", "text", "plain", "inline", "attachment",
    "aGVsbG8=", "not base64!", "-1", "1e309", "9".repeat(400), "<script>alert(1)</script>",
  ),
);
const leaf = fc.oneof(
  nastyStrings,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -0, 1e308),
);
const jsonish = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 12 }),
  object: fc.dictionary(fc.oneof(fc.constantFrom(...fieldNames), fc.string()), tie("value"), { maxKeys: 14 }),
})).value;

/** An email request with some fields well formed, some broken. */
const address = fc.oneof(
  fc.record({ name: nastyStrings, email: nastyStrings }, { requiredKeys: [] }),
  nastyStrings,
  jsonish,
);
const emailRequest = fc.record(
  {
    From: address,
    To: fc.oneof(fc.array(address, { maxLength: 14 }), jsonish),
    CC: fc.oneof(fc.array(address, { maxLength: 12 }), jsonish),
    BCC: fc.oneof(fc.array(address, { maxLength: 7 }), jsonish),
    ReplyTo: fc.oneof(fc.array(address, { maxLength: 12 }), jsonish),
    Subject: fc.oneof(nastyStrings, jsonish),
    ContentType: fc.oneof(fc.constantFrom("HTML", "Text", "html", "plain", "bogus"), jsonish),
    HTMLContent: fc.oneof(nastyStrings, jsonish),
    PlainContent: fc.oneof(nastyStrings, jsonish),
    Tags: fc.oneof(fc.array(nastyStrings, { maxLength: 12 }), jsonish),
    Headers: fc.oneof(fc.dictionary(nastyStrings, nastyStrings, { maxKeys: 5 }), jsonish),
    Attachments: fc.oneof(
      fc.array(
        fc.record(
          { Content: nastyStrings, Filename: nastyStrings, Type: nastyStrings, Disposition: nastyStrings, ContentId: fc.oneof(fc.integer(), nastyStrings) },
          { requiredKeys: [] },
        ),
        { maxLength: 3 },
      ),
      jsonish,
    ),
  },
  { requiredKeys: [] },
);

/** Percent-encodes every byte (encodeURIComponent throws on lone surrogates). */
const percentEncode = (s: string) => [...Buffer.from(s, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");

describe("fuzzing the public API", () => {
  let app: TestApp;
  let headers: Record<string, string>;

  beforeAll(async () => {
    // No workers: accepted fuzz messages are not delivered, so webhooks
    // registered with random URLs are never called.
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    const account = await createTestAccount(app.ctx);
    headers = bearer(account.apiKey);
  });
  afterAll(async () => {
    await app?.stop();
  });

  async function expectEnvelope(res: Response, input: unknown) {
    const text = await res.text();
    if (res.status === 500) throw new Error(`500 for input ${JSON.stringify(input)?.slice(0, 500)}: ${text}`);
    if (res.status === 200) return;
    expect(res.headers.get("content-type") ?? "").toContain("application/json");
    const parsed = errorEnvelopeSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`status ${res.status}, not an envelope: ${text}`);
  }

  it("POST /email: structured garbage never yields a 500", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(emailRequest, jsonish), async (body) => {
        const res = await app.fetch("/api/v1/email", { method: "POST", headers, body: JSON.stringify(body) });
        await expectEnvelope(res, body);
      }),
      { numRuns: runs },
    );
  }, FUZZ_TIMEOUT_MS);

  it("POST /email: a valid request with hostile text in any one field never yields a 500", async () => {
    // Garbage above rarely gets past validation; here everything else is
    // valid, so the hostile text reaches storage unless validation stops it
    // (a NUL or a lone surrogate once did: PostgreSQL refuses both).
    const hostileText = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.constantFrom("\u0000", "a\u0000b", "\ud800", "x\udc00", "\udc00\ud800", "\uffff", "\u2028", "💌", "\u0001\u007f"),
    );
    const base = () => ({
      From: { name: "Ann", email: "ann@example.com" },
      To: [{ name: "Bob", email: "bob@example.net" }],
      Subject: "Hi",
      ContentType: "HTML",
      HTMLContent: "<p>Hi</p>",
      PlainContent: "Hi",
      Tags: ["t"],
      Headers: { "X-Campaign": "c" } as Record<string, string>,
      Attachments: [{ Content: "aGVsbG8=", Filename: "a.txt" }],
    });
    const setters: ((b: ReturnType<typeof base>, v: string) => void)[] = [
      (b, v) => (b.Subject = v),
      (b, v) => (b.HTMLContent = v),
      (b, v) => (b.PlainContent = v),
      (b, v) => (b.Tags = [v]),
      (b, v) => (b.Headers = { "X-Campaign": v }),
      (b, v) => (b.From.name = v),
      (b, v) => (b.To[0]!.name = v),
      (b, v) => (b.To[0]!.email = `${v}@example.net`),
      (b, v) => (b.Attachments[0]!.Filename = `${v}.txt`),
    ];
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: setters.length - 1 }), hostileText, async (field, text) => {
        const body = base();
        setters[field]!(body, text);
        const res = await app.fetch("/api/v1/email", { method: "POST", headers, body: JSON.stringify(body) });
        await expectEnvelope(res, body);
      }),
      { numRuns: runs },
    );
  }, FUZZ_TIMEOUT_MS);

  it("POST /email: raw bytes, broken JSON and invalid UTF-8 never yield a 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
          fc.string().map((s) => Buffer.from(`{"From":${s}`)),
          fc.constantFrom(
            Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
            Buffer.from("[".repeat(100_000)),
            Buffer.from('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}'),
            Buffer.from('{"To":[' + '{"email":"a@b.co"},'.repeat(5000) + '{"email":"a@b.co"}]}'),
            Buffer.from("1e999999"),
          ),
        ),
        async (body) => {
          const res = await app.fetch("/api/v1/email", { method: "POST", headers, body });
          await expectEnvelope(res, body.toString("latin1").slice(0, 200));
        },
      ),
      { numRuns: Math.ceil(runs / 2) },
    );
    // Prototype pollution must not leak into other objects.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, FUZZ_TIMEOUT_MS);

  it("GET /events: any query string never yields a 500", async () => {
    const param = fc.constantFrom("StartDate", "EndDate", "Event", "StartFrom", "RetrieveCount", "MessageID", "MessageId", "__proto__");
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(param, fc.oneof(nastyStrings, fc.integer().map(String), fc.constant("1e400"))), { maxLength: 6 }), async (pairs) => {
        const qs = new URLSearchParams(pairs).toString();
        const res = await app.fetch(`/api/v1/events?${qs}`, { headers });
        await expectEnvelope(res, qs);
      }),
      { numRuns: runs },
    );
  }, FUZZ_TIMEOUT_MS);

  it("webhook endpoints: any body or id never yields a 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({ Event: fc.oneof(nastyStrings, jsonish), WebhookURL: fc.oneof(nastyStrings, fc.webUrl(), jsonish) }, { requiredKeys: [] }),
          jsonish,
        ),
        fc.oneof(nastyStrings, fc.integer().map(String), fc.constant("99999999999999999999")),
        async (body, id) => {
          const created = await app.fetch("/api/v1/webhooks", { method: "POST", headers, body: JSON.stringify(body) });
          await expectEnvelope(created, body);
          const deleted = await app.fetch(`/api/v1/webhooks/${percentEncode(id)}`, { method: "DELETE", headers });
          await expectEnvelope(deleted, id);
        },
      ),
      { numRuns: Math.ceil(runs / 2) },
    );
    // The fuzzing may have drained the request-rate bucket (429 is a valid
    // answer above); once it refills, the list still works. Polled: a 429 takes no token.
    let list = await app.fetch("/api/v1/webhooks", { headers });
    for (const deadline = Date.now() + 10_000; list.status === 429 && Date.now() < deadline; ) {
      await list.text();
      await new Promise((r) => setTimeout(r, 100));
      list = await app.fetch("/api/v1/webhooks", { headers });
    }
    expect(list.status).toBe(200);
  }, FUZZ_TIMEOUT_MS);
});
