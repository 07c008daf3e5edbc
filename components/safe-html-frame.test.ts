import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SafeHtmlFrame } from "./safe-html-frame";

describe("SafeHtmlFrame", () => {
  it("sandboxes the frame with popups only: a popup stays sandboxed (no scripts, cannot navigate its opener's tab)", () => {
    const markup = renderToStaticMarkup(createElement(SafeHtmlFrame, { doc: "<p>hi</p>", description: "d", testId: "f", className: "h-1" }));
    const sandbox = /<iframe[^>]* sandbox="([^"]*)"/.exec(markup)?.[1];
    expect(sandbox?.split(/\s+/)).toEqual(["allow-popups"]);
    expect(markup).toContain('referrerPolicy="no-referrer"');
  });
});
