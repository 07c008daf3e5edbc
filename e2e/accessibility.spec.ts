import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { THEME_COOKIE } from "../components/shell/theme";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * axe-core on every dashboard page, in light and in dark mode (the accessibility check):
 * a "serious" or "critical" violation (WCAG AA contrast among them) fails
 * the page, listed with the offending elements. The theme is the cookie the
 * header's toggle sets.
 */

const BLOCKING = new Set(["serious", "critical"]);

// axe-core itself (its Playwright wrapper wants Node 22): evaluated through the
// DevTools protocol, which the pages' nonce-based CSP does not govern.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

async function audit(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const { passes, violations } = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ passes: unknown[]; violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return {
      passes: result.passes.length,
      violations: result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target.map(String), failureSummary: n.failureSummary })) })),
    };
  });
  // axe really ran its rules on the page (a run that checked nothing would pass silently).
  expect(passes).toBeGreaterThan(5);
  return violations
    .filter((v) => BLOCKING.has(v.impact ?? ""))
    .map((v) => `${v.impact} ${v.id}: ${v.help}\n  ${v.nodes.map((n) => `${n.target.join(" ")} ${n.failureSummary?.split("\n").slice(1).join(" ") ?? ""}`).join("\n  ")}`);
}

async function pages(page: Page): Promise<Array<[string, string]>> {
  const { accountId: a, messages } = loadState();
  await page.goto(`/a/${a}/sandbox`);
  // A capture of the bulk seed (user<n>@), never the engaged message's: a captured copy's page loads its open
  // pixel (as the recipient's client would), and the message timeline and export specs count that message's events.
  const capture = await page.getByTestId("sandbox-row").filter({ hasText: /user\d+@example\.org/ }).first().getByRole("link").first().getAttribute("href");
  expect(capture).toBeTruthy();
  return [
    ["overview", `/a/${a}`],
    ["deliverability", `/a/${a}/deliverability`],
    ["events", `/a/${a}/events`],
    ["message timeline", `/a/${a}/messages/${messages.engaged}`],
    ["compose", `/a/${a}/compose`],
    ["templates", `/a/${a}/templates`],
    ["template editor", `/a/${a}/templates/${templateId}`],
    ["webhooks", `/a/${a}/webhooks`],
    ["settings", `/a/${a}/settings`],
    ["sandbox", `/a/${a}/sandbox`],
    ["sandbox message", capture!],
    ["accounts", "/accounts"],
    ["account password", "/account/password"],
  ];
}

let webhookId = 0;
let templateId = 0;

test.beforeAll(async () => {
  // A registered webhook, so the Webhooks page shows its list, not the empty state.
  const { url, apiKey } = loadState();
  const res = await fetch(`${url}/api/v1/webhooks`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ Event: "open", WebhookURL: "https://hooks.example.org/a11y" }),
  });
  expect(res.status).toBe(200);
  webhookId = ((await res.json()) as { NewWebhookID: number }).NewWebhookID;
  // A template, so the Templates pages show a list and an editor with its preview.
  const created = await fetch(`${url}/api/v1/templates`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ Name: "A11y", Subject: "Hello {{name}}", HTMLContent: "<p>Hello {{name}}</p>", PlainContent: "Hello {{name}}" }),
  });
  expect(created.status).toBe(200);
  templateId = ((await created.json()) as { TemplateID: number }).TemplateID;
});

test.afterAll(async () => {
  // Other specs count the registered webhooks.
  const { url, apiKey } = loadState();
  if (webhookId) await fetch(`${url}/api/v1/webhooks/${webhookId}`, { method: "DELETE", headers: { Authorization: `Bearer ${apiKey}` } });
  if (templateId) await fetch(`${url}/api/v1/templates/${templateId}`, { method: "DELETE", headers: { Authorization: `Bearer ${apiKey}` } });
});

for (const theme of ["light", "dark"] as const) {
  test(`no serious or critical axe violation on any dashboard page, ${theme} mode`, async ({ page, context, baseURL }) => {
    test.setTimeout(180_000);
    await context.addCookies([{ name: THEME_COOKIE, value: theme, url: baseURL! }]);
    const found: string[] = [];

    await page.goto("/login");
    for (const v of await audit(page)) found.push(`login (${theme}) ${v}`);

    await signIn(page, "admin");
    for (const [name, url] of await pages(page)) {
      const res = await page.goto(url);
      expect(res?.status(), name).toBe(200);
      await expect(page.locator("html")).toHaveClass(theme);
      for (const v of await audit(page)) found.push(`${name} (${theme}) ${v}`);
      if (name === "webhooks") await shot(page, `webhooks-${theme}`);
    }
    expect(found, found.join("\n")).toEqual([]);
  });
}
