import { describe, expect, it } from "vitest";
import { prepareSandboxHtml, trackingPath } from "./prepare-html";

describe("prepareSandboxHtml", () => {
  const html =
    '<html><head><title>x</title></head><body><p>Hi <a href="http://localhost:3000/t/c/c.abc.1.0.sig">start</a> and <a href="https://example.net/plain">plain</a></p>' +
    '<img src="cid:logo" alt="logo"><img src="http://localhost:3000/t/o/o.abc.1.sig" width="1" height="1" alt=""></body></html>';

  it("takes the open pixel out and hands over its path", async () => {
    const out = await prepareSandboxHtml(html, []);
    expect(out.pixelPath).toBe("/t/o/o.abc.1.sig");
    expect(out.doc).not.toContain("/t/o/");
  });

  it("makes tracked links same-origin paths and lists every link", async () => {
    const out = await prepareSandboxHtml(html, []);
    expect(out.doc).toContain('href="/t/c/c.abc.1.0.sig"');
    expect(out.links).toEqual([
      { text: "start", href: "/t/c/c.abc.1.0.sig", tracked: true },
      { text: "plain", href: "https://example.net/plain", tracked: false },
    ]);
  });

  it("shows inline images from their parts and opens links in a new tab", async () => {
    const out = await prepareSandboxHtml(html, [{ contentId: "logo", contentType: "image/png", contentBase64: "iVBORw0=" }]);
    expect(out.doc).toContain('src="data:image/png;base64,iVBORw0="');
    expect(out.doc).toContain('<head><base target="_blank">');
  });

  it("makes every link and image-map area noopener ahead of the message's own rel (the first of a repeated attribute wins)", async () => {
    const out = await prepareSandboxHtml('<a rel="opener" href="https://e.test/" target="_blank">x</a><map><area rel=opener href="https://e.test/a"></map><abbr>y</abbr><a\thref="/t/c/c.x.1.0.sig">z</a>', []);
    expect(out.doc).toBe(
      '<base target="_blank"><a rel="noopener noreferrer" rel="opener" href="https://e.test/" target="_blank">x</a><map><area rel="noopener noreferrer" rel=opener href="https://e.test/a"></map><abbr>y</abbr>' +
        '<a rel="noopener noreferrer"\thref="/t/c/c.x.1.0.sig">z</a>',
    );
  });

  it("recognises only real tracking paths", () => {
    expect(trackingPath("https://x.test/t/u/u.abc.2.sig", "u")).toBe("/t/u/u.abc.2.sig");
    expect(trackingPath("javascript:alert(1)", "c")).toBeNull();
    expect(trackingPath("https://x.test/t/c/../../admin", "c")).toBeNull();
  });

  it("reads entities, unquoted and upper-case attributes, and leaves the rest of the document as it was", async () => {
    const doc =
      '<HTML><HEAD data-x="1"></HEAD><BODY><A HREF=http://h.test/t/c/c.x.1.0.sig?a=1&amp;b=2>Go &amp; <b>see</b></A>' +
      '<a href="https://e.test/?a=1&amp;b=&#x110000;">e&#x110000;</a><!-- <img src="http://h.test/t/o/o.x.1.sig"> -->' +
      '<IMG SRC=&#x68;ttp://h.test/t/o/o.x.1.sig><td background="CID:bg"></td></BODY></HTML>';
    const out = await prepareSandboxHtml(doc, [{ contentId: "bg", contentType: "image/gif", contentBase64: "R0=" }]);
    expect(out.pixelPath).toBe("/t/o/o.x.1.sig");
    expect(out.links).toEqual([
      { text: "Go & see", href: "/t/c/c.x.1.0.sig", tracked: true },
      { text: "e\uFFFD", href: "https://e.test/?a=1&b=\uFFFD", tracked: false },
    ]);
    expect(out.doc).toBe(
      '<HTML><HEAD data-x="1"><base target="_blank"></HEAD><BODY><A rel="noopener noreferrer" HREF="/t/c/c.x.1.0.sig">Go &amp; <b>see</b></A>' +
        '<a rel="noopener noreferrer" href="https://e.test/?a=1&amp;b=&#x110000;">e&#x110000;</a><!-- <img src="http://h.test/t/o/o.x.1.sig"> -->' +
        '<td background="data:image/gif;base64,R0="></td></BODY></HTML>',
    );
  });

  it("does not hold the event loop on a 10 MB worst case", async () => {
    const { monitorEventLoopDelay } = await import("node:perf_hooks");
    for (const doc of ["<a ".repeat(3_500_000), `<a href="https://e.test/">${"&amp;".repeat(2_000_000)}</a>`, `<img src="${'"'.repeat(10_000_000)}`]) {
      const h = monitorEventLoopDelay({ resolution: 10 });
      h.enable();
      await prepareSandboxHtml(doc, []);
      h.disable();
      expect(h.max / 1e6).toBeLessThan(200);
    }
  }, 60_000);
});
