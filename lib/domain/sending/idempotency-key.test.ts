import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { errorItem } from "../../contract/errors";
import { acceptedAnswer, CLAIM_LOST, parseIdempotencyKey, refusedAnswer, requestHashOf, resolveOnce, type StoredKey } from "./idempotency-key";

describe("parseIdempotencyKey", () => {
  it("is no key when the header is absent", () => {
    expect(parseIdempotencyKey(undefined)).toEqual({ ok: true });
    expect(parseIdempotencyKey(null)).toEqual({ ok: true });
  });

  it("takes 1 to 256 printable ASCII characters as they are", () => {
    for (const key of ["a", "8e03978e-40d5-43e8-bc93-6894a57f9324", "order 42/retry:\"x\"~", "k".repeat(256), " !~"]) {
      expect(parseIdempotencyKey(key)).toEqual({ ok: true, key });
    }
  });

  it("refuses an empty key, 257 characters, control characters and anything beyond ASCII", () => {
    for (const key of ["", "k".repeat(257), "a\tb", "a\u0000b", "a\u007fb", "clé", "a\u2028b", "\u{1F600}"]) {
      expect(parseIdempotencyKey(key), JSON.stringify(key)).toEqual({ ok: false });
    }
  });
});

describe("requestHashOf", () => {
  it("is the SHA-256 of the raw bytes, so one changed byte is another request", async () => {
    const a = new TextEncoder().encode('{"Subject":"Hi"}');
    const b = new TextEncoder().encode('{"Subject":"Hi" }');
    expect(await requestHashOf(a)).toEqual(createHash("sha256").update(a).digest());
    expect((await requestHashOf(a)).equals(await requestHashOf(b))).toBe(false);
  });

  it("hashes a body of several slices, the last one partial, as one whole", async () => {
    const body = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => i % 251);
    expect(await requestHashOf(body)).toEqual(createHash("sha256").update(body).digest());
    expect(await requestHashOf(new Uint8Array(0))).toEqual(createHash("sha256").digest());
  });
});

describe("stored answers", () => {
  it("are the exact text the route sends", () => {
    expect(acceptedAnswer("7d0c2c8e-5f1a-4c7e-9a43-0b6f0f3e2a11")).toEqual({ status: 200, body: '{"MessageID":"7d0c2c8e-5f1a-4c7e-9a43-0b6f0f3e2a11"}' });
    expect(refusedAnswer([errorItem(32, "From.email")])).toEqual({
      status: 403,
      body: '{"Errors":[{"Code":32,"Message":"Domain is not activated","Field":"From.email"}]}',
    });
    expect(refusedAnswer([errorItem(14)]).status).toBe(422);
  });
});

describe("resolveOnce", () => {
  const hash = Buffer.from("aa", "hex");
  const stored = (h: Buffer): StoredKey => ({ requestHash: h, answer: { status: 200, body: "first" } });
  /** Answers of successive calls, the last one repeated. */
  const sequence = <T>(...values: T[]) => {
    let i = 0;
    return async () => values[Math.min(i++, values.length - 1)]!;
  };

  it("replays a stored answer of the same request without attempting it", async () => {
    let attempts = 0;
    const out = await resolveOnce(hash, { find: sequence<StoredKey | undefined>(stored(hash)), attempt: async () => (attempts++, "sent") });
    expect(out).toEqual({ kind: "replay", answer: { status: 200, body: "first" } });
    expect(attempts).toBe(0);
  });

  it("refuses a stored key of another request", async () => {
    const out = await resolveOnce(hash, { find: sequence<StoredKey | undefined>(stored(Buffer.from("bb", "hex"))), attempt: async () => "sent" });
    expect(out).toEqual({ kind: "mismatch" });
  });

  it("attempts a free key and answers its result", async () => {
    const out = await resolveOnce(hash, { find: sequence<StoredKey | undefined>(undefined), attempt: async () => "sent" });
    expect(out).toEqual({ kind: "first", result: "sent" });
  });

  it("after losing the claim, replays the winner's answer", async () => {
    const out = await resolveOnce(hash, { find: sequence<StoredKey | undefined>(undefined, stored(hash)), attempt: sequence<string | typeof CLAIM_LOST>(CLAIM_LOST) });
    expect(out).toEqual({ kind: "replay", answer: { status: 200, body: "first" } });
  });

  it("runs again when the winner released the key, and gives up as busy after the bounded rounds", async () => {
    const again = await resolveOnce(hash, { find: sequence<StoredKey | undefined>(undefined), attempt: sequence<string | typeof CLAIM_LOST>(CLAIM_LOST, "sent") });
    expect(again).toEqual({ kind: "first", result: "sent" });
    let attempts = 0;
    const busy = await resolveOnce(hash, { find: sequence<StoredKey | undefined>(undefined), attempt: async () => (attempts++, CLAIM_LOST) }, 3);
    expect(busy).toEqual({ kind: "busy" });
    expect(attempts).toBe(3);
  });
});
