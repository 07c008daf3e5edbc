import { expect, test } from "@playwright/test";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * The template editor's live preview shows what is being typed, rendered by
 * the API with the sample model (POST /templates/render, docs/contract.md
 * §14.4) without saving a version: the heading says the edits are unsaved,
 * a Mustache error in the typed HTML is named under the model, and after a
 * reload the saved version (still the only one) is what is previewed.
 */
test("the preview follows unsaved edits without saving a version", async ({ page }) => {
  test.setTimeout(90_000);
  const { accountId } = loadState();
  const base = `/a/${accountId}`;
  await signIn(page, "admin");
  await page.goto(`${base}/templates`);
  await page.getByRole("button", { name: "New template" }).click();
  await page.getByLabel("Name").fill(`Draft preview ${Date.now()}`);
  await page.getByLabel("Subject").fill("Order {{order}}");
  await page.getByLabel("HTML").fill("<p>Saved text for {{name}}</p>");
  await page.getByRole("button", { name: "Create template" }).click();
  await expect(page).toHaveURL(new RegExp(`${base}/templates/\\d+$`));
  await expect(page.getByRole("heading", { name: "Preview of version 1" })).toBeVisible();
  const frame = page.frameLocator('[data-testid="preview-html"]');
  await expect(frame.locator("p")).toHaveText("Saved text for Ann");

  // Typing: the preview renders the edits with the model, escaped in HTML, and nothing is saved.
  await page.getByLabel("Sample model (JSON)").fill('{"name": "<Bo>", "order": 7, "lines": ["tea", "cake"]}');
  await page.getByLabel("Subject").fill("Your order {{order}} is on its way");
  await page.getByLabel("HTML").fill("<h1>Hi {{name}}</h1><ul>{{#lines}}<li>{{.}}</li>{{/lines}}</ul>");
  await expect(page.getByRole("heading", { name: "Preview of your unsaved edits" })).toBeVisible();
  await expect(page.getByTestId("preview-subject")).toHaveText("Your order 7 is on its way");
  await expect(frame.locator("h1")).toHaveText("Hi <Bo>");
  await expect(frame.locator("li")).toHaveText(["tea", "cake"]);
  await expect(page.getByText("Sends saved version 1 (not your unsaved edits)")).toBeVisible();
  await shot(page, "templates-preview-unsaved");

  // A section left open in the typed HTML: the preview names the field, the last good render stays.
  await page.getByLabel("HTML").fill("<h1>Hi {{name}}</h1>{{#lines}}<li>{{.}}</li>");
  await expect(page.getByText("HTML cannot be previewed: Invalid request parameters")).toBeVisible();
  await expect(frame.locator("h1")).toHaveText("Hi <Bo>");
  await shot(page, "templates-preview-error");

  // Nothing was saved: after a reload, version 1 is the only version and is what is previewed.
  await page.reload();
  await expect(page.getByRole("heading", { name: "Preview of version 1" })).toBeVisible();
  await expect(page.getByTestId("template-versions").getByRole("listitem")).toHaveCount(1);
  await expect(page.getByTestId("preview-subject")).toHaveText("Order");
  await expect(frame.locator("p")).toHaveText("Saved text for Ann");
});
