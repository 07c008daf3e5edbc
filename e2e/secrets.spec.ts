import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { signIn } from "./support/session";
import { DIST_DIR, loadState } from "./support/state";

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

test("the built client bundles hold no API key and no MAILROOM_ setting", () => {
  const { apiKey, dashboardKey } = loadState();
  expect(dashboardKey).toMatch(/^mr_/);
  const files = filesUnder(path.join(DIST_DIR, "static"));
  expect(files.length).toBeGreaterThan(5);
  for (const file of files) {
    const text = readFileSync(file, "latin1");
    expect(text.includes(dashboardKey), file).toBe(false);
    expect(text.includes(apiKey), file).toBe(false);
    expect(/MAILROOM_[A-Z_]+/.exec(text)?.[0], file).toBeUndefined();
    expect(text.includes("AUTH_SECRET"), file).toBe(false);
    expect(/mr_[A-Za-z0-9_-]{43}/.exec(text)?.[0], `${file} has something shaped like an API key`).toBeUndefined();
  }
});

test("pages sent to the browser do not carry the dashboard's key", async ({ page }) => {
  const { dashboardKey } = loadState();
  await signIn(page, "admin");
  const bodies: string[] = [];
  page.on("response", async (r) => {
    if (r.request().resourceType() === "document" || r.request().method() === "POST") bodies.push(await r.text().catch(() => ""));
  });
  for (const p of ["/?range=24h", `/messages/${loadState().messages.engaged}`, "/events"]) {
    await page.goto(p);
    await page.waitForLoadState("networkidle");
  }
  // A filter change goes through a server action (POST): its answer is checked too.
  await page.getByLabel("Event type").selectOption("opened");
  await expect(page.getByTestId("events-results")).toHaveAttribute("aria-busy", "false");
  await page.waitForLoadState("networkidle");
  expect(bodies.length).toBeGreaterThan(2);
  for (const b of bodies) expect(b.includes(dashboardKey)).toBe(false);
});

test("pages carry a nonce-based CSP and the other security headers, and nothing violates it", async ({ page }) => {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  const res = await page.goto("/login");
  const h = res!.headers();
  expect(h["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  expect(h["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(h["x-content-type-options"]).toBe("nosniff");
  expect(h["x-frame-options"]).toBe("DENY");
  expect(h["referrer-policy"]).toBe("same-origin");
  await signIn(page, "admin");
  await page.goto("/?range=24h");
  // recharts draws after hydration (inline styles: style-src allows them, scripts stay nonce-bound).
  await page.locator('[data-testid="chart-counts"] [data-drawn=true] .chart-line').first().waitFor();
  await page.goto("/events");
  await page.getByTestId("event-row").first().click();
  await expect(page.getByRole("dialog")).toBeVisible();
  expect(violations).toEqual([]);
});
