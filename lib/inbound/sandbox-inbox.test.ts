import { describe, expect, it } from "vitest";
import { httpTarget } from "./sandbox-inbox";

describe("httpTarget (the List-Unsubscribe URL of a captured copy)", () => {
  it("takes the first <http(s)://…> target", () => {
    expect(httpTarget("<https://h.test/t/u/u.x.1.sig>, <mailto:u@b.test?subject=unsubscribe>")).toBe("https://h.test/t/u/u.x.1.sig");
    expect(httpTarget("<mailto:u@b.test>, <http://h.test/u>")).toBe("http://h.test/u");
    expect(httpTarget("<<https://h.test/a<b>")).toBe("https://h.test/a<b");
    expect(httpTarget("<https://>")).toBeNull();
    expect(httpTarget("no target")).toBeNull();
  });

  // Quadratic would be hours at 2,000,000 characters; linear is well under a second even on a busy machine.
  it("is linear on runs of `<` (the regex it replaces was quadratic)", () => {
    for (const value of ["<".repeat(2_000_000), `${"<https://".repeat(200_000)}`, `${"<".repeat(2_000_000)}>`]) {
      const t = performance.now();
      httpTarget(value);
      expect(performance.now() - t).toBeLessThan(1500);
    }
  });
});
