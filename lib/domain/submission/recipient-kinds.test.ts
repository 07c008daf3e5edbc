import { describe, expect, it } from "vitest";
import { recipientKinds } from "./recipient-kinds";
import { toCrlf } from "./header-block";

describe("recipientKinds", () => {
  it("maps envelope recipients to To, Cc and Bcc by the headers, deduplicated, To first", () => {
    const r = recipientKinds(["Hidden@x.org", "b@x.org", "a@x.org", "A@X.org"], ["a@x.org"], ["B@x.org", "nobody@x.org"]);
    expect(r).toEqual({
      ok: true,
      recipients: [
        { email: "a@x.org", normalized: "a@x.org", kind: "to" },
        { email: "b@x.org", normalized: "b@x.org", kind: "cc" },
        { email: "Hidden@x.org", normalized: "hidden@x.org", kind: "bcc" },
      ],
    });
  });
  it("refuses more than 5 Bcc (recipients in no header)", () => {
    const rcpts = Array.from({ length: 6 }, (_, i) => `h${i}@x.org`);
    expect(recipientKinds(rcpts, [], [])).toEqual({ ok: false, kind: "bcc", count: 6, max: 5 });
    expect(recipientKinds(rcpts, rcpts, []).ok).toBe(true);
  });
});

describe("toCrlf", () => {
  it("turns bare LFs into CRLF and leaves CRLF alone", () => {
    expect(toCrlf(Buffer.from("a\nb\r\nc\n")).toString()).toBe("a\r\nb\r\nc\r\n");
    const same = Buffer.from("a\r\n");
    expect(toCrlf(same)).toBe(same);
  });
});
