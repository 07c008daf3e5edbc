import { expect, test } from "@playwright/test";
import { signIn } from "./support/session";
import { loadState } from "./support/state";

/** Settings → API keys with scopes and sender domains (docs/contract.md §17.2, §17.3). */
test("API keys: a read key and a domain-limited send key made in Settings, listed with their scope, bound by it", async ({ page, request }) => {
  const { url } = loadState();
  await signIn(page, "admin");
  await page.goto("/settings");

  const make = async (label: string, scope: string, domains = "") => {
    await page.getByLabel("Label").fill(label);
    await page.getByLabel("Scope").selectOption(scope);
    await page.getByLabel("Sender domains").fill(domains);
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByTestId("new-api-key");
    await expect(shown).toHaveText(/^mr_[A-Za-z0-9_-]{43}$/);
    const key = (await shown.textContent())!;
    await page.getByRole("button", { name: "Done" }).click();
    return key;
  };
  const stamp = Date.now();
  const readKey = await make(`e2e reader ${stamp}`, "read");
  const sendKey = await make(`e2e sender ${stamp}`, "send", "example.com");

  await expect(page.getByTestId("api-key-row").filter({ hasText: `e2e reader ${stamp}` }).getByTestId("api-key-scope")).toHaveText("read");
  await expect(page.getByTestId("api-key-row").filter({ hasText: `e2e sender ${stamp}` }).getByTestId("api-key-scope")).toHaveText(/^send\s*from example\.com$/);

  const auth = (key: string) => ({ Authorization: `Bearer ${key}` });
  const mail = (from: string) => ({ From: from, To: ["e2e-scope@example.org"], Subject: "scoped", ContentType: "Text", PlainContent: "x" });
  expect((await request.get(`${url}/api/v1/events`, { headers: auth(readKey) })).status()).toBe(200);
  const refused = await request.post(`${url}/api/v1/email`, { headers: auth(readKey), data: mail("shop@example.com") });
  expect(refused.status()).toBe(403);
  expect((await refused.json()).Errors[0].Message).toContain("scope is read");
  expect((await request.post(`${url}/api/v1/email`, { headers: auth(sendKey), data: mail("shop@example.com") })).status()).toBe(200);
  expect((await request.get(`${url}/api/v1/events`, { headers: auth(sendKey) })).status()).toBe(403);

  // A bad domain is refused with a message, and no key is made.
  await page.getByLabel("Label").fill("bad domains");
  await page.getByLabel("Sender domains").fill("not a domain!");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("api-keys").getByRole("alert")).toContainText("is not a domain name");
  await expect(page.getByTestId("new-api-key")).toHaveCount(0);
});
