import { expect, test, type Page } from "@playwright/test";
import { addStaffUser, changeStaffRole, removeStaffUser } from "../lib/domain/staff/staff-users";
import { openDatabase } from "../lib/storage/database";
import { actionId, callAction } from "./support/actions";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

const nav = (page: Page) => page.getByRole("navigation", { name: "Main" }).getByRole("link");

test("marketing sees the overview, deliverability and events only, read-only", async ({ page }) => {
  const { messages } = loadState();
  await signIn(page, "marketing");
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await expect(nav(page)).toHaveText(["Overview", "Deliverability", "Events"]);
  // No MessageID search in the header: the message page is not theirs.
  await expect(page.getByRole("search")).toHaveCount(0);

  const direct = await page.goto(`/messages/${messages.engaged}`);
  expect(direct?.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "Your role may not open this page" })).toBeVisible();
  await shot(page, "forbidden-marketing");
  // The message's data is not on the 403 page.
  await expect(page.getByText("Welcome to Mailroom")).toHaveCount(0);

  // The event drawer shows the record, but not as a link to the message page.
  await page.goto(`/events?messageId=${messages.engaged}&type=accepted`);
  await page.getByTestId("event-row").first().click();
  await expect(page.getByTestId("event-json")).toBeVisible();
  await expect(page.getByRole("dialog").getByRole("link", { name: messages.engaged })).toHaveCount(0);
});

test("support sees events, messages (and compose/sandbox when built), not the overview", async ({ page }) => {
  const { messages } = loadState();
  await signIn(page, "support");
  // The landing page of support is the event log.
  await expect(page).toHaveURL(/\/events$/);
  await expect(nav(page)).not.toContainText(["Overview"]);
  await expect(nav(page).filter({ hasText: "Webhooks" })).toHaveCount(0);
  await expect(nav(page).filter({ hasText: "Settings" })).toHaveCount(0);
  await expect(page.getByRole("search")).toBeVisible();

  const res = await page.goto(`/messages/${messages.engaged}`);
  expect(res?.status()).toBe(200);
  await expect(page.getByTestId("recipient-timeline").first()).toBeVisible();
});

test("admin sees every built page", async ({ page }) => {
  await signIn(page, "admin");
  await expect(nav(page).first()).toHaveText("Overview");
  await expect(nav(page).filter({ hasText: "Events" })).toHaveCount(1);
  await expect(page.getByRole("search")).toBeVisible();
});

test("routes and server actions check the session and role, whatever the UI shows", async ({ page, request }) => {
  const listEvents = actionId("listEventsAction", "app/(dashboard)/a/[account]/events/actions.ts");
  const overview = actionId("getOverviewAction", "app/(dashboard)/a/[account]/actions.ts");

  // No session: the CSV export answers 401 and the actions hand out nothing.
  expect((await request.get("/events/export")).status()).toBe(401);
  const anon = await callAction(request, "/events", listEvents, [loadState().accountId, ""]);
  expect(anon.body).not.toContain("TotalRecords");

  // Support may not use the overview: calling its action directly is refused too.
  await signIn(page, "support");
  const own = await callAction(page.request, "/events", listEvents, [loadState().accountId, ""]);
  expect(own.body).toContain("TotalRecords");
  const denied = await callAction(page.request, "/events", overview, [loadState().accountId, { range: "7d" }]);
  expect(denied.body).not.toContain("previousTotals");
  // staffAction's one result shape (ADR 0510): a refusal, not data.
  expect(denied.body).toContain("Your role may not use this");

  // Marketing reads the overview and may export events.
  await page.context().clearCookies();
  await signIn(page, "marketing");
  const allowed = await callAction(page.request, "/", overview, [loadState().accountId, { range: "7d" }]);
  expect(allowed.body).toContain("previousTotals");
  expect((await page.request.get("/events/export?type=accepted")).status()).toBe(200);
});

test("a role change or a removal applies to a signed-in user at once", async ({ page }) => {
  const { databaseUrl, messages } = loadState();
  const database = openDatabase(databaseUrl, { max: 1 });
  try {
    await addStaffUser(database, { email: "temp@example.com", role: "support", password: "temp-password-1" });
    await page.goto("/login");
    await page.getByLabel("Email").fill("temp@example.com");
    await page.getByLabel("Password").fill("temp-password-1");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/events$/);
    expect((await page.goto(`/messages/${messages.engaged}`))?.status()).toBe(200);

    // A role change ends the user's sessions (docs/adr/0507): signed out at once; signed in again, the new role holds.
    await changeStaffRole(database, "temp@example.com", "marketing");
    await page.goto(`/messages/${messages.engaged}`);
    await expect(page).toHaveURL(/\/login/);
    await page.getByLabel("Email").fill("temp@example.com");
    await page.getByLabel("Password").fill("temp-password-1");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).not.toHaveURL(/\/login/);
    expect((await page.goto(`/messages/${messages.engaged}`))?.status()).toBe(403);

    await removeStaffUser(database, "temp@example.com");
    await page.goto("/events");
    await expect(page).toHaveURL(/\/login/);
  } finally {
    await removeStaffUser(database, "temp@example.com").catch(() => {});
    await database.close();
  }
});
