import { expect, test, type Page } from "@playwright/test";
import { actionId, callAction } from "./support/actions";
import { signIn } from "./support/session";
import { loadState } from "./support/state";

/** A refused action: 403, or (depending on the page it is posted to) the 403 digest of forbidden() in the RSC stream, and nothing handed out. */
function expectRefused(name: string, res: { status: number; body: string }) {
  expect(res.status === 403 || res.body.includes("NEXT_HTTP_ERROR_FALLBACK;403"), `${name}: ${res.status} ${res.body.slice(0, 500)}`).toBe(true);
  expect(res.body, name).not.toMatch(/whsec_|mr_[A-Za-z0-9_-]{20}|"ok":true/);
}

/**
 * Compose, sandbox, webhooks and settings: the role check holds on the
 * server for pages, route handlers and server actions called directly
 * (POST with the action's id, bypassing the UI).
 */

const nav = (page: Page) => page.getByRole("navigation", { name: "Main" }).getByRole("link");

const ACTIONS = [
  ["createWebhookAction", "app/(dashboard)/webhooks/actions.ts", [{ Event: "delivery", WebhookURL: "https://example.net/x" }]],
  ["deleteWebhookAction", "app/(dashboard)/webhooks/actions.ts", [1]],
  ["revealSigningKeyAction", "app/(dashboard)/webhooks/actions.ts", []],
  ["rotateSigningKeyAction", "app/(dashboard)/webhooks/actions.ts", []],
  ["sendTestAction", "app/(dashboard)/webhooks/actions.ts", [1]],
  ["listAttemptsAction", "app/(dashboard)/webhooks/actions.ts", [1]],
  ["createApiKeyAction", "app/(dashboard)/settings/actions.ts", ["stolen"]],
  ["addStaffAction", "app/(dashboard)/settings/actions.ts", [{ email: "intruder@example.com", role: "admin", password: "intruder-password" }]],
  ["removeSuppressionAction", "app/(dashboard)/settings/actions.ts", ["bounce@example.org"]],
  ["reportSpamAction", "app/(dashboard)/sandbox/actions.ts", [1]],
] as const;

test("marketing reaches none of compose, sandbox, webhooks, settings: pages, routes or actions", async ({ page }) => {
  await signIn(page, "marketing");
  await expect(nav(page)).toHaveText(["Overview", "Events"]);
  for (const path of ["/compose", "/sandbox", "/sandbox/1", "/webhooks", "/settings"]) {
    const res = await page.goto(path);
    expect(res?.status(), path).toBe(403);
    await expect(page.getByRole("heading", { name: "Your role may not open this page" })).toBeVisible();
  }
  // Route handlers.
  const send = await page.request.post("/compose/send", { multipart: { draft: "{}" } });
  expect(send.status()).toBe(403);
  expect((await page.request.get("/sandbox/1/raw")).status()).toBe(403);
  expect((await page.request.get("/sandbox/1/attachments/0")).status()).toBe(403);

  // Server actions called directly.
  for (const [name, file, args] of ACTIONS) {
    expectRefused(name, await callAction(page.request, "/events", actionId(name, file), [...args]));
  }
  // Nothing happened: no webhook was registered by the refused call.
  const { url, apiKey } = loadState();
  const list = (await (await fetch(`${url}/api/v1/webhooks`, { headers: { Authorization: `Bearer ${apiKey}` } })).json()) as { Webhooks: { WebhookURL: string }[] };
  expect(list.Webhooks.some((w) => w.WebhookURL === "https://example.net/x")).toBe(false);
});

test("support composes and uses the sandbox, but not webhooks or settings", async ({ page, request }) => {
  // Without a session: routes answer 401, actions hand out nothing.
  expect((await request.post("/compose/send", { multipart: { draft: "{}" } })).status()).toBe(401);
  expect((await request.get("/sandbox/1/raw")).status()).toBe(401);
  const anon = await callAction(request, "/", actionId("revealSigningKeyAction", "app/(dashboard)/webhooks/actions.ts"), []);
  expect(anon.body).not.toContain("whsec_");

  await signIn(page, "support");
  await expect(nav(page).filter({ hasText: "Compose" })).toHaveCount(1);
  await expect(nav(page).filter({ hasText: "Sandbox" })).toHaveCount(1);
  await expect(nav(page).filter({ hasText: "Webhooks" })).toHaveCount(0);
  await expect(nav(page).filter({ hasText: "Settings" })).toHaveCount(0);
  expect((await page.goto("/compose"))?.status()).toBe(200);
  expect((await page.goto("/sandbox"))?.status()).toBe(200);
  expect((await page.goto("/webhooks"))?.status()).toBe(403);
  expect((await page.goto("/settings"))?.status()).toBe(403);
  for (const [name, file, args] of ACTIONS.filter(([, f]) => !f.includes("sandbox"))) {
    expectRefused(name, await callAction(page.request, "/events", actionId(name, file), [...args]));
  }
});
