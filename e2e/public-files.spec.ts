import { expect, test } from "@playwright/test";

/**
 * The files of public/ are served to anyone, without a session (a browser
 * asks for the icon before signing in, a crawler never signs in), and
 * robots.txt keeps every page of the app (the dashboard, the tracking
 * links, the API) out of search engines.
 */
test.describe("public files, signed out", () => {
  test("robots.txt disallows everything, with no redirect to sign-in", async ({ request }) => {
    const res = await request.get("/robots.txt", { maxRedirects: 0 });
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toMatch(/^text\/plain/);
    const rules = (await res.text()).split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"));
    expect(rules).toEqual(["User-agent: *", "Disallow: /"]);
  });

  test("the favicon is served as an icon (ICO and SVG), and the pages link it", async ({ request, page }) => {
    const ico = await request.get("/favicon.ico", { maxRedirects: 0 });
    expect(ico.status()).toBe(200);
    const bytes = await ico.body();
    expect([...bytes.subarray(0, 4)]).toEqual([0, 0, 1, 0]); // ICONDIR: reserved 0, type 1 (icon)
    const svg = await request.get("/favicon.svg", { maxRedirects: 0 });
    expect(svg.status()).toBe(200);
    expect(svg.headers()["content-type"]).toMatch(/^image\/svg\+xml/);
    expect(svg.headers()["x-content-type-options"]).toBe("nosniff");

    await page.goto("/login");
    await expect(page.locator('link[rel="icon"][href^="/favicon.svg"]')).toHaveCount(1);
  });

  test("a page of the dashboard still needs a session", async ({ request }) => {
    const res = await request.get("/events", { maxRedirects: 0 });
    expect(res.status()).toBeGreaterThanOrEqual(300);
    expect(res.status()).toBeLessThan(400);
    expect(res.headers()["location"]).toMatch(/\/login/);
  });
});
