import { describe, expect, it } from "vitest";
import { isBodyLeftUnread, readJsonBody } from "./body";

const req = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request("http://x/", { method: "POST", body, headers, ...(body instanceof ReadableStream && { duplex: "half" }) } as RequestInit);

const stream = (chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch));
      c.close();
    },
  });

describe("readJsonBody", () => {
  it("parses JSON, with or without a BOM", async () => {
    expect(await readJsonBody(req('{"a":1}'), 100)).toEqual({ ok: true, value: { a: 1 } });
    expect(await readJsonBody(req('\uFEFF{"a":1}'), 100)).toEqual({ ok: true, value: { a: 1 } });
    expect(await readJsonBody(req(stream(['{"a"', ":2}"])), 100)).toEqual({ ok: true, value: { a: 2 } });
  });
  it("reports malformed JSON and invalid UTF-8", async () => {
    expect(await readJsonBody(req("{"), 100)).toEqual({ ok: false, reason: "malformed" });
    expect(await readJsonBody(req(""), 100)).toEqual({ ok: false, reason: "malformed" });
    expect(await readJsonBody(req(new Uint8Array([0x22, 0xc3, 0x28, 0x22])), 100)).toEqual({ ok: false, reason: "malformed" });
  });
  it("stops at the cap, declared or streamed, and marks the request", async () => {
    const declared = req("x".repeat(101));
    expect(await readJsonBody(declared, 100)).toEqual({ ok: false, reason: "too-large" });
    expect(isBodyLeftUnread(declared)).toBe(true);
    const streamed = req(stream(["x".repeat(60), "x".repeat(60)]));
    expect(await readJsonBody(streamed, 100)).toEqual({ ok: false, reason: "too-large" });
    expect(await readJsonBody(req('"' + "x".repeat(98) + '"'), 100)).toMatchObject({ ok: true });
  });
});
