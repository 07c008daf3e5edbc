import { expect, test, type Page } from "@playwright/test";
import { actionId, callAction } from "./support/actions";
import { signIn } from "./support/session";
import { loadState } from "./support/state";

/** A refused action: staffAction's refusal for the role (ADR 0510), a 403, or the 403 digest of forbidden(), and nothing handed out. */
function expectRefused(name: string, res: { status: number; body: string }) {
  const refused = res.status === 403 || res.body.includes("NEXT_HTTP_ERROR_FALLBACK;403") || res.body.includes('"ok":false,"error":"Your role may not use this"');
  expect(refused, `${name}: ${res.status} ${res.body.slice(0, 500)}`).toBe(true);
  expect(res.body, name).not.toMatch(/whsec_|mr_[A-Za-z0-9_-]{20}|"ok":true/);
}

/**
 * Compose, sandbox, webhooks and settings: the role check holds on the
 * server for pages, route handlers and server actions called directly
 * (POST with the action's id, bypassing the UI).
 */

const nav = (page: Page) => page.getByRole("navigation", { name: "Main" }).getByRole("link");

const ACTIONS = [
  ["createWebhookAction", "app/(dashboard)/a/[account]/webhooks/actions.ts", [{ Event: "delivery", WebhookURL: "https://example.net/x" }]],
  ["deleteWebhookAction", "app/(dashboard)/a/[account]/webhooks/actions.ts", [1]],
  ["revealSigningKeyAction", "app/(dashboard)/a/[account]/webhooks/actions.ts", []],
  ["rotateSigningKeyAction", "app/(dashboard)/a/[account]/webhooks/actions.ts", []],
  ["sendTestAction", "app/(dashboard)/a/[account]/webhooks/actions.ts", [1]],
  ["listAttemptsAction", "app/(dashboard)/a/[account]/webhooks/actions.ts", [1]],
  ["createApiKeyAction", "app/(dashboard)/a/[account]/settings/actions.ts", ["stolen"]],
  ["addStaffAction", "app/(dashboard)/a/[account]/settings/actions.ts", [{ email: "intruder@example.com", role: "admin", password: "intruder-password" }]],
  ["removeSuppressionAction", "app/(dashboard)/a/[account]/settings/actions.ts", ["bounce@example.org"]],
  ["reportSpamAction", "app/(dashboard)/a/[account]/sandbox/actions.ts", [1]],
] as const;

test("marketing reaches none of compose, sandbox, webhooks, settings: pages, routes or actions", async ({ page }) => {
  await signIn(page, "marketing");
  await expect(nav(page)).toHaveText(["Overview", "Deliverability", "Events"]);
  for (const path of ["/compose", "/sandbox", "/sandbox/1", "/webhooks", "/settings"]) {
    const res = await page.goto(path);
    expect(res?.status(), path).toBe(403);
    await expect(page.getByRole("heading", { name: "Your role may not open this page" })).toBeVisible();
  }
  // Route handlers.
  const base = `/a/${loadState().accountId}`;
  const send = await page.request.post(`${base}/compose/send`, { multipart: { draft: "{}" } });
  expect(send.status()).toBe(403);
  expect((await page.request.get(`${base}/sandbox/1/raw`)).status()).toBe(403);
  expect((await page.request.get(`${base}/sandbox/1/attachments/0`)).status()).toBe(403);

  // Server actions called directly.
  for (const [name, file, args] of ACTIONS) {
    expectRefused(name, await callAction(page.request, "/events", actionId(name, file), [loadState().accountId, ...args]));
  }
  // Nothing happened: no webhook was registered by the refused call.
  const { url, apiKey } = loadState();
  const list = (await (await fetch(`${url}/api/v1/webhooks`, { headers: { Authorization: `Bearer ${apiKey}` } })).json()) as { Webhooks: { WebhookURL: string }[] };
  expect(list.Webhooks.some((w) => w.WebhookURL === "https://example.net/x")).toBe(false);
});

test("support composes and uses the sandbox, but not webhooks or settings", async ({ page, request }) => {
  // Without a session: routes answer 401, actions hand out nothing.
  const base = `/a/${loadState().accountId}`;
  expect((await request.post(`${base}/compose/send`, { multipart: { draft: "{}" } })).status()).toBe(401);
  expect((await request.get(`${base}/sandbox/1/raw`)).status()).toBe(401);
  const anon = await callAction(request, "/", actionId("revealSigningKeyAction", "app/(dashboard)/a/[account]/webhooks/actions.ts"), [loadState().accountId]);
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
    expectRefused(name, await callAction(page.request, "/events", actionId(name, file), [loadState().accountId, ...args]));
  }
});
