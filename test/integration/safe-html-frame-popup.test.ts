import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser } from "@playwright/test";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SafeHtmlFrame } from "../../components/safe-html-frame";

/**
 * Reverse tab-nabbing through the received-HTML frame (components/safe-html-frame.tsx,
 * ADR 0601), in Debian's Chromium: the frame as the dashboard renders it, a
 * message link with `target="_blank" rel="opener"` to a page that tries to
 * send the dashboard's tab elsewhere through `window.opener.top`. The popup
 * must stay sandboxed (no script runs there), so the dashboard's tab stays.
 * Served by a plain HTTP server: the frame alone, not the app.
 */
describe("the received-HTML frame's popups", () => {
  let server: Server;
  let browser: Browser;
  let origin: string;
  const hits: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? "");
      res.setHeader("content-type", "text/html; charset=utf-8");
      if (req.url === "/dashboard") {
        const message = `<p><a id="nab" href="${origin}/landing" target="_blank" rel="opener">Read the article</a></p>`;
        res.end(`<!doctype html><title>dashboard</title>${renderToStaticMarkup(createElement(SafeHtmlFrame, { doc: message, description: "", testId: "frame", className: "" }))}`);
      } else if (req.url === "/landing") {
        // The script a hostile landing page runs; the image after it loads whether scripts run or not.
        res.end(`<!doctype html><title>landing</title><script>if (window.opener) window.opener.top.location = "${origin}/phished";</script><img src="${origin}/landed.png">`);
      } else res.end("<!doctype html><title>other</title>");
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  });
  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  it("a rel=opener link's page cannot navigate the dashboard's tab", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${origin}/dashboard`);
    const popup = context.waitForEvent("page");
    await page.frameLocator('[data-testid="frame"]').locator("#nab").click();
    const landing = await popup;
    await landing.waitForLoadState("load");
    expect(hits).toContain("/landed.png");
    // The opener's navigation would have started while the landing page ran its script; give it a moment to arrive.
    await page.waitForURL(`${origin}/phished`, { timeout: 2000 }).catch(() => undefined);
    expect(page.url()).toBe(`${origin}/dashboard`);
    expect(hits).not.toContain("/phished");
    await context.close();
  });
});
