import { expect, test, type Locator, type Page } from "@playwright/test";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * The dashboard's navigation (components/shell/nav-menu.tsx): a grouped left
 * sidebar on wide screens that holds every area an owner may open without
 * clipping one, and a "Menu" disclosure at phone width.
 */

const nav = (page: Page) => page.getByRole("navigation", { name: "Main" }).getByRole("link");
const OWNER_AREAS = ["Overview", "Deliverability", "Events", "Sandbox", "Inbound", "Compose", "Templates", "Scheduled", "Webhooks", "Settings", "Accounts", "Queues", "Egress"];

/** Why the element is not wholly shown: outside the viewport, its text cut, or cut by a scrolling/clipping ancestor; "" when wholly shown. */
async function clipping(element: Locator): Promise<string> {
  return element.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const name = el.textContent?.trim() ?? "";
    if (r.width === 0 || r.height === 0) return `${name}: not rendered`;
    if (r.left < 0 || r.top < 0 || r.right > window.innerWidth || r.bottom > window.innerHeight) return `${name}: outside the viewport`;
    if (el.scrollWidth > el.clientWidth) return `${name}: text truncated (${el.scrollWidth} > ${el.clientWidth})`;
    for (let a = el.parentElement; a; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (style.overflowX === "visible" && style.overflowY === "visible") continue;
      const b = a.getBoundingClientRect();
      if (r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5) return `${name}: cut by ${a.tagName}.${a.className}`;
    }
    return "";
  });
}

test("at 1280 px an owner's sidebar shows every area under its group, none clipped", async ({ page }) => {
  const { accountId } = loadState();
  await signIn(page, "admin");
  await page.goto(`/a/${accountId}`);
  await expect(nav(page)).toHaveText(OWNER_AREAS);
  await expect(nav(page).filter({ hasText: "Overview" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("list", { name: "Activity" }).getByRole("link")).toHaveText(["Overview", "Deliverability", "Events", "Sandbox", "Inbound"]);
  await expect(page.getByRole("list", { name: "Configure" }).getByRole("link")).toHaveText(["Webhooks", "Settings"]);
  await expect(page.getByRole("list", { name: "Instance" }).getByRole("link")).toHaveText(["Accounts", "Queues", "Egress"]);
  // The disclosure is for narrow screens only.
  await expect(page.getByRole("button", { name: "Menu" })).toBeHidden();

  // Every link and button of the frame (the navigation, Change password, theme, Sign out) is wholly shown.
  const banner = page.getByRole("banner");
  const controls = [...(await banner.getByRole("link").all()), ...(await banner.getByRole("button").all())];
  expect(controls.length).toBeGreaterThanOrEqual(OWNER_AREAS.length + 4);
  const cut = (await Promise.all(controls.map(clipping))).filter(Boolean);
  expect(cut).toEqual([]);
  await shot(page, "navigation-1280", { fullPage: false });

  // The current page follows a navigation.
  await nav(page).filter({ hasText: "Webhooks" }).click();
  await expect(page).toHaveURL(new RegExp(`/a/${accountId}/webhooks$`));
  await expect(nav(page).filter({ hasText: "Webhooks" })).toHaveAttribute("aria-current", "page");
  await expect(page.locator('[aria-current="page"]')).toHaveCount(1);
});

test("at 390 px the menu is a keyboard-usable disclosure that reaches every area", async ({ page }) => {
  const { accountId } = loadState();
  await signIn(page, "admin");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/a/${accountId}`);
  const menu = page.getByRole("button", { name: "Menu" });
  await expect(menu).toBeVisible();
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(nav(page).first()).toBeHidden();
  const panel = page.locator(`#${await menu.getAttribute("aria-controls")}`);
  await expect(panel).toBeHidden();

  // Opened from the keyboard; Tab goes on into the panel.
  await menu.focus();
  await page.keyboard.press("Enter");
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  await expect(panel).toBeVisible();
  await expect(nav(page)).toHaveText(OWNER_AREAS);
  await page.keyboard.press("Tab");
  await expect(panel.locator(":focus")).toHaveCount(1);
  for (const link of await nav(page).all()) {
    await link.scrollIntoViewIfNeeded();
    expect(await clipping(link)).toBe("");
  }
  await expect(page.getByRole("link", { name: "Change password" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, "navigation-390-open", { fullPage: false });

  // Escape closes it and gives the focus back to the button.
  await page.keyboard.press("Escape");
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(panel).toBeHidden();
  await expect(menu).toBeFocused();
  await shot(page, "navigation-390-closed", { fullPage: false });

  // Space opens it again; following a link closes it on the new page.
  await page.keyboard.press("Space");
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  await nav(page).filter({ hasText: "Events" }).click();
  await expect(page).toHaveURL(new RegExp(`/a/${accountId}/events$`));
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await menu.click();
  await expect(nav(page).filter({ hasText: "Events" })).toHaveAttribute("aria-current", "page");
});
