import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clickTarget } from "./click-target";

describe("clickTarget", () => {
  it("percent-encodes what Location cannot carry", () => {
    expect(clickTarget("https://ja.wikipedia.org/wiki/日本")).toEqual({ kind: "redirect", location: "https://ja.wikipedia.org/wiki/%E6%97%A5%E6%9C%AC" });
    expect(clickTarget("https://例え.テスト/a b?q=ü#f")).toEqual({ kind: "redirect", location: "https://xn--r8jz45g.xn--zckzah/a%20b?q=%C3%BC#f" });
    expect(clickTarget("https://example.org/welcome?a=1&b=2")).toEqual({ kind: "redirect", location: "https://example.org/welcome?a=1&b=2" });
  });

  it("shows a page for what the URL parser refuses", () => {
    for (const url of ["https://", "https://[::1", "http://exa mple.org/", "https://a.test:99999/", "https://\uFFFD.test/"]) {
      expect(clickTarget(url)).toEqual({ kind: "page", url });
    }
  });

  it("property: a redirect's Location is a valid URL that leads to the original", () => {
    const link = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.tuple(fc.webUrl(), fc.string({ unit: "binary", maxLength: 30 })).map(([u, s]) => u + s),
      fc.string({ unit: "binary", maxLength: 40 }).map((s) => `https://${s}`),
    );
    fc.assert(
      fc.property(link, (url) => {
        const t = clickTarget(url);
        if (t.kind === "page") {
          expect(t.url).toBe(url);
          return;
        }
        expect(() => new Headers({ Location: t.location })).not.toThrow();
        expect(new URL(t.location).href).toBe(new URL(url).href);
      }),
      { numRuns: 2000 },
    );
    // 2,000 runs take about a second alone; the bound is for a machine busy with other test files.
  }, 30_000);
});
