import fc from "fast-check";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { escapeAttribute, extractTrackableLinks, injectTracking, planTracking, renderTracking, scanHtml } from "./tracking-html";

const html = `<html><body><p><a href="https://example.org/a?x=1&amp;y=2">A</a>
<a class="b" href='http://example.org/b'>B</a> <a href="mailto:x@example.org">mail</a>
<a href="#top">top</a> <A HREF="HTTPS://EXAMPLE.ORG/C">C</A><img src="cid:logo"></p></body></html>`;

describe("tracking injection", () => {
  it("lists http(s) links in order, decoded", async () => {
    expect(await extractTrackableLinks(html)).toEqual(["https://example.org/a?x=1&y=2", "http://example.org/b", "HTTPS://EXAMPLE.ORG/C"]);
  });

  it("rewrites only trackable links, with indexes matching extractTrackableLinks", async () => {
    const out = await injectTracking(html, { linkUrl: (i) => `https://t.test/c/${i}?a=1&b=2` });
    expect(out).toContain('href="https://t.test/c/0?a=1&amp;b=2"');
    expect(out).toContain('class="b" href="https://t.test/c/1?a=1&amp;b=2"');
    expect(out).toContain('HREF="https://t.test/c/2?a=1&amp;b=2"');
    expect(out).toContain('href="mailto:x@example.org"');
    expect(out).toContain('href="#top"');
    expect(out).toContain('src="cid:logo"');
    // Everything else is byte for byte the input.
    expect(out.replace(/(href|HREF)="https:\/\/t\.test\/c\/\d\?a=1&amp;b=2"/g, "X")).toBe(html.replace(/(href|HREF)=("|')https?:\/\/example\.org\/[^"']*("|')/gi, "X"));
  });

  it("puts the pixel before </body>, or at the end without one", async () => {
    expect(await injectTracking(html, { pixelUrl: "https://t.test/o/x" })).toMatch(/<img src="https:\/\/t.test\/o\/x"[^>]*\/><\/body><\/html>$/);
    expect(await injectTracking("<p>hi</p>", { pixelUrl: "https://t.test/o/x" })).toMatch(/^<p>hi<\/p><img /);
    // A </body> inside a comment or a script is no closing tag.
    expect(await injectTracking("<!-- </body> --><script>'</body>'</script><p>x</p></BODY >", { pixelUrl: "https://t.test/o" })).toBe(
      '<!-- </body> --><script>\'</body>\'</script><p>x</p><img src="https://t.test/o" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px" /></BODY >',
    );
  });

  it("reads links as a browser does: unquoted, first href wins, entities of every kind, none in comments or unclosed tags", async () => {
    const doc =
      '<a href=https://u.test/1 href="https://u.test/ignored">1</a>' +
      '<a data-href="https://u.test/no" title=x>no</a>' +
      '<a href="&#x68;ttps://u.test/2?a=1&b=2&copy=3&amp;d=&#34;q&#34;">2</a>' +
      '<!-- <a href="https://u.test/comment">c</a> -->' +
      '<a\nhref\n=\n"https://u.test/3">3</a>' +
      '<a href="https://u.test/unclosed"';
    expect(await extractTrackableLinks(doc)).toEqual(["https://u.test/1", "https://u.test/2?a=1&b=2&copy=3&d=\"q\"", "https://u.test/3"]);
    const out = await injectTracking(doc, { linkUrl: (i) => `https://t.test/${i}` });
    expect(out).toContain('<a href="https://t.test/0" href="https://u.test/ignored">');
    expect(out).toContain('<a\nhref="https://t.test/2">3</a>');
    expect(out.endsWith('<a href="https://u.test/unclosed"')).toBe(true);
  });

  it("never throws on invalid code points and leaves them out of tracking", async () => {
    const doc = '<a href="https://example.org/&#x110000;">x</a><a href="https://example.org/&#xD800;&#99999999999;&#0;">y</a>&#x110000;';
    const links = await extractTrackableLinks(doc);
    expect(links).toEqual(["https://example.org/\uFFFD", "https://example.org/\uFFFD\uFFFD\uFFFD"]);
    await expect(injectTracking(doc, { linkUrl: (i) => `https://t.test/${i}`, pixelUrl: "https://t.test/o" })).resolves.toContain('href="https://t.test/1"');
  });

  it("does not track links with white space inside or over 8192 characters", async () => {
    const long = `https://u.test/${"a".repeat(8192)}`;
    expect(await extractTrackableLinks(`<a href="https://u.test/a b">x</a><a href="${long}">y</a><a href=" https://u.test/ok ">z</a>`)).toEqual([
      "https://u.test/ok",
    ]);
  });

  it("yields to the event loop on a 10 MB worst case (no turn over 200 ms)", async () => {
    const cases = {
      "<a ": "<a ".repeat(3_500_000),
      "<": "<".repeat(10_000_000),
      '"': `<a href="${'"'.repeat(10_000_000)}`,
      "&#x": `<a href="${"&#x".repeat(3_300_000)}">`,
      "&amp": `<a href="https://u.test/${"&amp".repeat(2_500_000)}">x</a>`,
      " ": `<a${" ".repeat(10_000_000)}href="https://u.test/">x</a>`,
    };
    for (const [name, doc] of Object.entries(cases)) {
      const h = monitorEventLoopDelay({ resolution: 10 });
      h.enable();
      const plan = await planTracking(doc);
      renderTracking(doc, plan, { linkUrl: (i) => `https://t.test/${i}`, pixelUrl: "https://t.test/o" });
      h.disable();
      expect(h.max / 1e6, name).toBeLessThan(200);
    }
  }, 120_000);
});

describe("scanHtml", () => {
  it("reports tags with their spans, the first of each asked attribute, and decoded text", async () => {
    const tags: string[] = [];
    const texts: string[] = [];
    const doc = '<IMG Src="cid:a&amp;b" src=x alt=""><p>A &amp; B&#x110000;</p>';
    await scanHtml(doc, {
      attributes: new Set(["src"]),
      openTag: (t) => tags.push(`${t.name}@${t.start}-${t.end}:${t.attributes.map((a) => `${a.rawName}=${a.value}|${doc.slice(a.start, a.end)}`).join(",")}`),
      text: (t) => texts.push(t),
    });
    expect(tags).toEqual(['img@0-36:Src=cid:a&b|Src="cid:a&amp;b"', "p@36-39:"]);
    expect(texts.join("")).toBe("A & B\uFFFD");
  });

  it("gives the same answer whatever the chunk size", async () => {
    await fc.assert(
      fc.asyncProperty(htmlDoc, fc.integer({ min: 1, max: 64 }), async (doc, chunk) => {
        const seen = (size?: number) => {
          const out: string[] = [];
          return scanHtml(doc, { attributes: new Set(["href"]), openTag: (t) => out.push(JSON.stringify(t)), closeTag: (n, s) => out.push(`/${n}@${s}`) }, size).then(() => out);
        };
        expect(await seen(chunk)).toEqual(await seen());
      }),
      { numRuns: 150 },
    );
  });
});

// Random HTML: well-formed and broken pieces, entities (valid, invalid, unterminated), links of every shape.
const url = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.constantFrom("https://ja.wikipedia.org/wiki/日本", "http://example.org/a b", "https://example.org/\"'<>", "HTTPS://X.TEST/%zz", "https://[::1]:99999/", "https://", "javascript:alert(1)"),
  fc.string({ unit: "binary", maxLength: 20 }).map((s) => `https://u.test/${s}`),
);
const entity = fc.constantFrom("&amp;", "&#x110000;", "&#xD800;", "&#99999999999;", "&#", "&#x", "&", "&quot", "&copy", "&notin;", "&#0;", "&#x41;");
const attrValue = fc.tuple(url, fc.array(entity, { maxLength: 3 })).map(([u, e]) => u + e.join(""));
const quoted = fc.oneof(
  attrValue.map((v) => `"${v.replaceAll('"', "&quot;")}"`),
  attrValue.map((v) => `'${v.replaceAll("'", "&#39;")}'`),
  attrValue.map((v) => v.replace(/[\s>"'=<`]/g, "")),
  attrValue,
);
const piece = fc.oneof(
  fc.tuple(fc.constantFrom("a", "A", "a ", "img", "p", "body", "script", "style", "title"), fc.constantFrom("href", "HREF", "src", "data-href"), quoted, fc.constantFrom(">", "/>", "", " x>")).map(
    ([t, a, v, end]) => `<${t} ${a}=${v}${end}`,
  ),
  fc.constantFrom("</a>", "</body>", "</ body >", "</script>", "<!--", "-->", "<![CDATA[", "]]>", "<!doctype html>", "<?x?>", "<", ">", '"', "'", "<a ", "=", "\n", " "),
  entity,
  fc.string({ maxLength: 12 }),
);
const htmlDoc = fc.array(piece, { maxLength: 25 }).map((p) => p.join(""));

describe("properties over random HTML", () => {
  it("never throws; rewriting touches only the href attributes it lists and adds the pixel once", async () => {
    await fc.assert(
      fc.asyncProperty(htmlDoc, async (doc) => {
        const plan = await planTracking(doc);
        expect(renderTracking(doc, plan, {})).toBe(doc);
        const link = (i: number) => `https://t.test/c/${i}?k=${i}&x="y"`;
        const out = renderTracking(doc, plan, { linkUrl: link, pixelUrl: "https://t.test/o/1" });
        // Rebuild the expected output from the spans alone.
        let expected = "";
        let pos = 0;
        let pixelDone = false;
        const pixel = '<img src="https://t.test/o/1" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px" />';
        plan.spans.forEach((s, i) => {
          if (!pixelDone && plan.pixelAt <= s.start) {
            expected += doc.slice(pos, plan.pixelAt) + pixel;
            pos = plan.pixelAt;
            pixelDone = true;
          }
          expected += doc.slice(pos, s.start) + `${s.rawName}="${escapeAttribute(link(i))}"`;
          pos = s.end;
        });
        if (!pixelDone) expected += doc.slice(pos, plan.pixelAt) + pixel + doc.slice(plan.pixelAt);
        else expected += doc.slice(pos);
        expect(out).toBe(expected);
        // The rewritten copy lists exactly the tracking links, in order.
        expect(await extractTrackableLinks(out)).toEqual(plan.links.map((_, i) => link(i)));
      }),
      { numRuns: 400 },
    );
  });

  it("reads back any http(s) link exactly, however its characters are written", async () => {
    const encode = fc.constantFrom<(s: string) => string>(
      (s) => escapeAttribute(s),
      (s) => [...s].map((c) => `&#x${c.codePointAt(0)!.toString(16)};`).join(""),
      (s) => [...s].map((c) => `&#${c.codePointAt(0)};`).join(""),
    );
    await fc.assert(
      fc.asyncProperty(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string({ unit: "grapheme", maxLength: 8 }), encode, async (u, extra, enc) => {
        const link = (u + extra.replace(/\s/gu, "")).trim();
        const links = await extractTrackableLinks(`<p><a class=x href="${enc(link)}">t</a></p>`);
        expect(links).toEqual([link]);
      }),
      { numRuns: 300 },
    );
  });
});
