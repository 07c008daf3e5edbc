import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { looksLikeEmailAddress } from "./plausible-email";

const LOOSE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

describe("looksLikeEmailAddress", () => {
  it("accepts plausible addresses and refuses the rest", () => {
    for (const ok of ["a@b.c", "ann.lee@example.org", "x+y@sub.example.co.uk", "a@b..c", "a@.b.c"]) expect(looksLikeEmailAddress(ok), ok).toBe(true);
    for (const bad of ["", "a", "@b.c", "a@", "a@b", "a@b.", "a@.b", "a@@b.c", "a@b@c.d", "a b@c.d", "a@b.c ", "a@b\t.c"]) expect(looksLikeEmailAddress(bad), bad).toBe(false);
  });

  it("agrees with the regex it replaces", () => {
    const chars = fc.constantFrom("a", "b", ".", "@", " ", "\n", "\u00a0", "é");
    fc.assert(fc.property(fc.array(chars, { maxLength: 12 }).map((a) => a.join("")), (s) => looksLikeEmailAddress(s) === LOOSE.test(s)), { numRuns: 5000 });
  });

  it("stays linear on long input", () => {
    const start = performance.now();
    expect(looksLikeEmailAddress(`a@${"b".repeat(200_000)}`)).toBe(false);
    expect(performance.now() - start).toBeLessThan(200);
  });
});
