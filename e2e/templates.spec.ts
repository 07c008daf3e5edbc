import { expect, test } from "@playwright/test";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * Templates (docs/contract.md §14) in the dashboard, all through the public
 * API as the account: create, preview rendered by the API from a sample
 * model (HTML-escaped in HTML only), save a new version, the two versions
 * side by side, a test send whose message view names the template and
 * version, Compose starting from the template, and archiving.
 */
test("create, preview, version, compare, send a test, compose from it, archive", async ({ page }) => {
  test.setTimeout(120_000);
  const { accountId } = loadState();
  const base = `/a/${accountId}`;
  const name = `Receipt ${Date.now()}`;
  await signIn(page, "admin");
  await page.goto(`${base}/templates`);
  await expect(page.getByRole("heading", { name: "Templates", exact: true })).toBeVisible();

  await page.getByRole("button", { name: "New template" }).click();
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Subject").fill("Hello {{name}}");
  await page.getByLabel("HTML").fill("<p>Dear {{name}}</p><ul>{{#items}}<li>{{.}}</li>{{/items}}</ul>");
  await page.getByLabel("Plain text").fill("Dear {{name}}");
  await page.getByRole("button", { name: "Create template" }).click();
  await expect(page).toHaveURL(new RegExp(`${base}/templates/\\d+$`));
  const templateId = page.url().split("/").at(-1)!;
  await expect(page.getByTestId("template-name")).toHaveText(name);

  // The preview: the API's render of the saved version with the sample model.
  await expect(page.getByTestId("preview-subject")).toHaveText("Hello Ann");
  await page.getByLabel("Sample model (JSON)").fill('{"name": "<b>Bo</b>", "items": ["tea", "cake"]}');
  await expect(page.getByTestId("preview-subject")).toHaveText("Hello <b>Bo</b>");
  await expect(page.getByTestId("preview-text")).toHaveText("Dear <b>Bo</b>");
  const frame = page.frameLocator('[data-testid="preview-html"]');
  await expect(frame.locator("p")).toHaveText("Dear <b>Bo</b>");
  await expect(frame.locator("li")).toHaveText(["tea", "cake"]);
  await page.getByLabel("Sample model (JSON)").fill("[1, 2]");
  await expect(page.getByText("A JSON object, such as")).toBeVisible();
  await page.getByLabel("Sample model (JSON)").fill('{"name": "Cy"}');
  await expect(page.getByTestId("preview-subject")).toHaveText("Hello Cy");

  // A refused save names the field; a good one is version 2.
  await page.getByLabel("Subject").fill("");
  await page.getByRole("button", { name: "Save as a new version" }).click();
  await expect(page.getByText("Missing Subject").first()).toBeVisible();
  await page.getByLabel("Subject").fill("Hello again {{name}}");
  await page.getByRole("button", { name: "Save as a new version" }).click();
  await expect(page.getByText("Saved as version 2")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Edit (latest: version 2)" })).toBeVisible();
  await expect(page.getByTestId("template-versions").getByRole("listitem")).toHaveCount(2);
  await page.getByTestId("template-versions").getByRole("link", { name: "Compare" }).click();
  await expect(page.getByTestId("version-1")).toContainText("Hello {{name}}");
  await expect(page.getByTestId("version-2")).toContainText("Hello again {{name}}");
  await shot(page, "templates-editor");

  // A test send: the message view names the template and its version.
  await page.getByLabel("Send a test to").fill("template-test@example.org");
  await page.getByRole("button", { name: "Send a test" }).click();
  await page.getByTestId("test-message-link").click();
  await expect(page.getByTestId("message-template")).toHaveText(`#${templateId}, version 2`);

  // Compose starts from it: the subject and bodies, variables as written.
  await page.goto(`${base}/compose`);
  await page.getByLabel("Start from a template").selectOption({ label: `${name} (#${templateId})` });
  await expect(page.locator("#subject")).toHaveValue("Hello again {{name}}");
  await expect(page.locator("#html-body")).toHaveValue("<p>Dear {{name}}</p><ul>{{#items}}<li>{{.}}</li>{{/items}}</ul>");

  // Archive: gone from the list.
  await page.goto(`${base}/templates/${templateId}`);
  page.once("dialog", (d) => void d.accept());
  await page.getByRole("button", { name: "Archive" }).click();
  await expect(page).toHaveURL(new RegExp(`${base}/templates$`));
  await expect(page.getByText(name)).toHaveCount(0);
});
