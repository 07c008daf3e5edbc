import { describe, expect, it } from "vitest";
import { extractTrackableLinks, injectTracking } from "./tracking-inject";

const html = `<html><body><p><a href="https://example.org/a?x=1&amp;y=2">A</a>
<a class="b" href='http://example.org/b'>B</a> <a href="mailto:x@example.org">mail</a>
<a href="#top">top</a> <A HREF="HTTPS://EXAMPLE.ORG/C">C</A><img src="cid:logo"></p></body></html>`;

describe("tracking injection", () => {
  it("lists http(s) links in order, decoded", () => {
    expect(extractTrackableLinks(html)).toEqual(["https://example.org/a?x=1&y=2", "http://example.org/b", "HTTPS://EXAMPLE.ORG/C"]);
  });

  it("rewrites only trackable links, with indexes matching extractTrackableLinks", () => {
    const out = injectTracking(html, { linkUrl: (i) => `https://t.test/c/${i}?a=1&b=2` });
    expect(out).toContain('href="https://t.test/c/0?a=1&amp;b=2"');
    expect(out).toContain('class="b" href="https://t.test/c/1?a=1&amp;b=2"');
    expect(out).toContain('HREF="https://t.test/c/2?a=1&amp;b=2"');
    expect(out).toContain('href="mailto:x@example.org"');
    expect(out).toContain('href="#top"');
    expect(out).toContain('src="cid:logo"');
  });

  it("puts the pixel before </body>, or at the end without one", () => {
    expect(injectTracking(html, { pixelUrl: "https://t.test/o/x" })).toMatch(/<img src="https:\/\/t.test\/o\/x"[^>]*\/><\/body><\/html>$/);
    expect(injectTracking("<p>hi</p>", { pixelUrl: "https://t.test/o/x" })).toMatch(/^<p>hi<\/p><img /);
  });
});
