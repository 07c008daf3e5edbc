import { describe, expect, it } from "vitest";
import { prepareSandboxHtml, trackingPath } from "./prepare-html";

describe("prepareSandboxHtml", () => {
  const html =
    '<html><head><title>x</title></head><body><p>Hi <a href="http://localhost:3000/t/c/c.abc.1.0.sig">start</a> and <a href="https://example.net/plain">plain</a></p>' +
    '<img src="cid:logo" alt="logo"><img src="http://localhost:3000/t/o/o.abc.1.sig" width="1" height="1" alt=""></body></html>';

  it("takes the open pixel out and hands over its path", () => {
    const out = prepareSandboxHtml(html, []);
    expect(out.pixelPath).toBe("/t/o/o.abc.1.sig");
    expect(out.doc).not.toContain("/t/o/");
  });

  it("makes tracked links same-origin paths and lists every link", () => {
    const out = prepareSandboxHtml(html, []);
    expect(out.doc).toContain('href="/t/c/c.abc.1.0.sig"');
    expect(out.links).toEqual([
      { text: "start", href: "/t/c/c.abc.1.0.sig", tracked: true },
      { text: "plain", href: "https://example.net/plain", tracked: false },
    ]);
  });

  it("shows inline images from their parts and opens links in a new tab", () => {
    const out = prepareSandboxHtml(html, [{ contentId: "logo", contentType: "image/png", contentBase64: "iVBORw0=" }]);
    expect(out.doc).toContain('src="data:image/png;base64,iVBORw0="');
    expect(out.doc).toContain('<head><base target="_blank">');
  });

  it("recognises only real tracking paths", () => {
    expect(trackingPath("https://x.test/t/u/u.abc.2.sig", "u")).toBe("/t/u/u.abc.2.sig");
    expect(trackingPath("javascript:alert(1)", "c")).toBeNull();
    expect(trackingPath("https://x.test/t/c/../../admin", "c")).toBeNull();
  });
});
