import { describe, expect, it } from "vitest";
import { mailroomReferences } from "./references";
import { strippedTextReply } from "./stripped-reply";

describe("StrippedTextReply", () => {
  it("cuts at the attribution line and the quote", () => {
    const text = "Thanks, that works!\r\n\r\nAnn\r\n\r\nOn Mon, 2 Mar 2026 at 10:00, Mailroom <noreply@example.com> wrote:\r\n> Your order shipped.\r\n";
    expect(strippedTextReply(text)).toBe("Thanks, that works!\n\nAnn");
  });
  it("handles a wrapped attribution, a bare quote and Outlook's separator", () => {
    expect(strippedTextReply("Yes.\nOn Mon, 2 Mar 2026, Ann Example <ann@example.org>\nwrote:\n> q")).toBe("Yes.");
    expect(strippedTextReply("No.\n> quoted\nmore")).toBe("No.");
    expect(strippedTextReply("Sure\n\n-----Original Message-----\nFrom: x")).toBe("Sure");
  });
  it("keeps a message without quotes whole and is linear on large input", () => {
    expect(strippedTextReply("Just a note\nOn second thought, nothing.")).toBe("Just a note\nOn second thought, nothing.");
    const big = "line\n".repeat(2_000_000);
    const t0 = performance.now();
    expect(strippedTextReply(big).length).toBeGreaterThan(0);
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

describe("mailroomReferences", () => {
  const a = "0b8a3c1e-1234-4abc-8def-0123456789ab";
  const b = "1b8a3c1e-1234-4abc-8def-0123456789ab";
  it("takes In-Reply-To first, then References newest first, only uuid local parts", () => {
    expect(mailroomReferences(`<${a}@Example.com>`, `<x@y> <${b}@example.com> <${a}@example.com>`)).toEqual([
      { id: a, domain: "example.com" },
      { id: b, domain: "example.com" },
    ]);
    expect(mailroomReferences("<not-ours@gmail.com>", "")).toEqual([]);
  });
});
