import { expect, test } from "@playwright/test";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/** Compose (admin, support): a real send through the API, checked in the sandbox inbox; field errors from the form and from the API. */

// A 2×2 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==",
  "base64",
);
const PDF = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n" + "x".repeat(2000));

test("compose with an inline image and an attachment; both parts arrive intact in the sandbox", async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page, "support");
  await page.goto("/compose");
  await expect(page.getByRole("heading", { name: "Compose" })).toBeVisible();
  const subject = `Compose e2e ${Date.now()}`;

  await page.getByLabel("From address").fill("compose");
  await expect(page.getByLabel("Sender domain")).toHaveValue("example.com");
  await page.getByLabel("From name").fill("Compose Test");
  await page.getByLabel("To 1 name").fill("Ann Attach");
  await page.getByLabel("To 1 email").fill("ann.attach@example.org");
  await page.getByRole("button", { name: "+ Add CC address" }).click();
  await page.getByLabel("CC 1 email").fill("carl.copy@example.org");
  await page.getByLabel("Subject").fill(subject);
  await page.getByLabel("HTML", { exact: true }).fill('<h1>Quarterly report</h1>\n<p>See the attached report.</p>\n');
  await page.getByLabel("Tags (0 / 10)").fill("e2e, compose");

  await page.getByTestId("file-input").setInputFiles([
    { name: "logo.png", mimeType: "image/png", buffer: PNG },
    { name: "report.pdf", mimeType: "application/pdf", buffer: PDF },
  ]);
  await expect(page.getByTestId("attachment-row")).toHaveCount(2);
  await page.getByLabel("Placement of logo.png").selectOption("inline");
  await expect(page.getByLabel("Content id of logo.png")).toHaveValue("logo");
  await page.getByRole("button", { name: "Insert into HTML" }).click();
  await expect(page.getByLabel("HTML", { exact: true })).toHaveValue(/<img src="cid:logo" alt="logo.png">/);
  await expect(page.getByTestId("size-meter-text")).toContainText("of 10 MB");
  // The live preview shows the inline image (as a data: URL) in the sandboxed frame.
  await expect(page.getByTestId("html-preview")).toHaveAttribute("sandbox", "");
  await expect(page.frameLocator('[data-testid="html-preview"]').locator("h1")).toHaveText("Quarterly report");
  await expect(page.frameLocator('[data-testid="html-preview"]').locator("img")).toHaveAttribute("src", /^data:image\/png;base64,/);

  await page.getByTestId("html-preview").scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollBy(0, -220));
  await shot(page, "compose-preview", { fullPage: false });

  await page.getByRole("tab", { name: /Plain-text body/ }).click();
  await page.getByLabel("Plain text").fill("See the attached report.");
  await shot(page, "compose");

  await page.getByTestId("send").click();
  const sent = page.getByTestId("sent-message-id");
  await expect(sent).toHaveText(/^[0-9a-f-]{36}$/);
  const messageId = (await sent.textContent())!;
  await expect(sent).toHaveAttribute("href", `/a/${loadState().accountId}/messages/${messageId}`);
  await shot(page, "compose-sent", { fullPage: false });

  // In the sandbox inbox, with both parts intact.
  await page.goto(`/sandbox?q=${messageId}`);
  await expect.poll(async () => {
    await page.reload();
    return page.getByTestId("sandbox-row").count();
  }, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
  await page.getByTestId("sandbox-row").filter({ hasText: "ann.attach@example.org" }).getByRole("link").click();
  await expect(page.getByTestId("sandbox-subject")).toHaveText(subject);
  const parts = page.getByTestId("sandbox-attachment");
  await expect(parts).toHaveCount(2);
  await expect(parts.filter({ hasText: "logo.png" })).toContainText("inline");
  await expect(parts.filter({ hasText: "logo.png" })).toContainText("cid:logo");
  await expect(parts.filter({ hasText: "report.pdf" })).toContainText("attachment");
  await expect(page.frameLocator('[data-testid="sandbox-html"]').locator("img[alt='logo.png']")).toHaveAttribute("src", /^data:image\/png;base64,/);
  await expect(page.getByTestId("sandbox-text")).toContainText("See the attached report.");

  // Byte for byte, through the role-checked download route.
  for (const [name, bytes] of [
    ["logo.png", PNG],
    ["report.pdf", PDF],
  ] as const) {
    const href = await parts.filter({ hasText: name }).getByRole("link").getAttribute("href");
    const res = await page.request.get(href!);
    expect(res.status()).toBe(200);
    expect(Buffer.compare(await res.body(), bytes)).toBe(0);
  }
});

test("field errors: an over-limit BCC in the form, an unverified From domain from the API; the form keeps its content", async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page, "admin");
  // A domain of the account that is not verified (pending).
  const pending = `unverified-${Date.now()}.example.net`;
  await page.goto("/settings#domains");
  await page.getByLabel("Domain", { exact: true }).fill(pending);
  await page.getByRole("button", { name: "Add domain" }).click();
  await expect(page.getByTestId("domain-row").filter({ hasText: pending })).toContainText("pending");

  await page.goto("/compose");
  await page.getByLabel("From address").fill("news");
  await page.getByLabel("To 1 email").fill("reader@example.org");
  await page.getByLabel("Subject").fill("Over the limit");
  await page.getByLabel("HTML", { exact: true }).fill("<p>Hello</p>");
  // Six BCC addresses pasted at once (the spec allows five).
  await page.getByRole("button", { name: "+ Add BCC address" }).click();
  await page.getByLabel("BCC 1 email").focus();
  await page.evaluate(() => {
    const data = new DataTransfer();
    data.setData("text", "b1@example.org, b2@example.org, b3@example.org, b4@example.org, b5@example.org, Six <b6@example.org>");
    document.activeElement!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  });
  await expect(page.getByTestId("count-BCC")).toHaveText("6 / 5");
  await page.getByTestId("send").click();
  await expect(page.getByTestId("error-BCC")).toContainText("At most 5 BCC addresses");
  await expect(page.frameLocator('[data-testid="html-preview"]').locator("p")).toHaveText("Hello");
  await shot(page, "compose-errors");
  await page.getByRole("button", { name: "Remove BCC 6" }).click();
  await expect(page.getByTestId("count-BCC")).toHaveText("5 / 5");

  // The API refuses an unverified From domain (code 32): the error lands on the From field.
  await page.getByLabel("Sender domain").selectOption(pending);
  await expect(page.locator("#from-domain-hint")).toContainText("Not verified");
  await page.getByTestId("send").click();
  await expect(page.locator("#from-local-error")).toContainText("Domain is not activated (code 32)");
  await expect(page.getByTestId("error-BCC")).toHaveCount(0);
  // Nothing lost.
  await expect(page.getByLabel("Subject")).toHaveValue("Over the limit");
  await expect(page.getByLabel("BCC 5 email")).toHaveValue("b5@example.org");
  await expect(page.getByLabel("HTML", { exact: true })).toHaveValue("<p>Hello</p>");

  // The upload route checks again on the server, whatever the browser did.
  const draft = {
    from: { local: "news", domain: "example.com", name: "" },
    to: [{ name: "", email: "reader@example.org" }],
    cc: [],
    bcc: Array.from({ length: 6 }, (_, i) => ({ name: "", email: `b${i}@example.org` })),
    replyTo: [],
    subject: "Direct",
    html: "",
    text: "Hi",
    tags: "",
    headers: [],
    attachments: [],
  };
  const res = await page.request.post(`/a/${loadState().accountId}/compose/send`, { multipart: { draft: JSON.stringify(draft) } });
  expect(res.status()).toBe(400);
  expect(((await res.json()) as { errors: Record<string, string> }).errors.BCC).toMatch(/At most 5/);
});

test("a subject is counted in characters, as the API counts it: 600 emoji are sent, 999 are refused by the form", async ({ page }) => {
  await signIn(page, "support");
  await page.goto("/compose");
  await page.getByLabel("From address").fill("emoji");
  await page.getByLabel("To 1 email").fill("emoji.reader@example.org");
  await expect(page.getByLabel("Sender domain")).toHaveValue("example.com");
  await page.getByLabel("HTML", { exact: true }).fill("<p>Hello</p>");
  // 999 characters (1998 UTF-16 units): the input keeps them all, the form refuses them.
  await page.getByLabel("Subject").fill("😀".repeat(999));
  await expect(page.getByLabel("Subject")).toHaveValue("😀".repeat(999));
  await page.getByTestId("send").click();
  await expect(page.locator("#subject-error")).toContainText("At most 998 characters");
  // 600 characters (1200 UTF-16 units): within the API's 998.
  await page.getByLabel("Subject").fill("😀".repeat(600));
  await page.getByTestId("send").click();
  await expect(page.getByTestId("sent-message-id")).toHaveText(/^[0-9a-f-]{36}$/);
});

test("a large upload shows its progress", async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page, "admin");
  await page.goto("/compose");
  await page.getByLabel("From address").fill("big");
  await page.getByLabel("To 1 email").fill(`big-${Date.now()}@example.org`);
  await page.getByLabel("Subject").fill("Large attachment");
  await page.getByRole("tab", { name: /Plain-text body/ }).click();
  await page.getByLabel("Plain text").fill("A large file.");
  // Dropped on the drop zone, as a person drags a file from the desktop.
  const dataTransfer = await page.evaluateHandle(() => {
    const data = new DataTransfer();
    data.items.add(new File([new Uint8Array(3 * 1024 * 1024).fill(7)], "big.bin", { type: "application/octet-stream" }));
    return data;
  });
  await page.getByTestId("drop-zone").dispatchEvent("drop", { dataTransfer });
  await expect(page.getByTestId("attachment-row")).toContainText("big.bin");
  await expect(page.getByTestId("size-meter-text")).toContainText("3.00 MB of 10 MB");
  // Slow the upload down so that the progress is visible (Chromium's network emulation).
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 1024 * 1024 });
  await page.getByTestId("send").click();
  await expect(page.getByTestId("upload-progress")).toBeVisible();
  await shot(page, "compose-progress", { fullPage: false });
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await expect(page.getByTestId("sent-message-id")).toBeVisible({ timeout: 30_000 });
  // The 3 MB arrived whole: the captured copy carries it.
  const messageId = (await page.getByTestId("sent-message-id").textContent())!;
  const { url, apiKey } = loadState();
  await expect
    .poll(async () => {
      const res = await fetch(`${url}/api/v1/events?MessageID=${messageId}&Event=delivered`, { headers: { Authorization: `Bearer ${apiKey}` } });
      return ((await res.json()) as { TotalRecords: number }).TotalRecords;
    }, { timeout: 30_000 })
    .toBe(1);
  await page.goto(`/sandbox?q=${messageId}`);
  await page.getByTestId("sandbox-row").getByRole("link").click();
  await expect(page.getByTestId("sandbox-attachment")).toContainText("big.bin");
  const href = await page.getByTestId("sandbox-attachment").getByRole("link").getAttribute("href");
  const body = await (await page.request.get(href!)).body();
  expect(body.length).toBe(3 * 1024 * 1024);
  expect(body.every((b) => b === 7)).toBe(true);
});

test("the upload route refuses a body over its 16 MiB bound with 413, before parsing it", async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page, "admin");
  const draft = JSON.stringify({ from: { local: "big", domain: "example.com", name: "" }, to: [], cc: [], bcc: [], replyTo: [], subject: "", html: "", text: "", tags: "", headers: [], attachments: [{ filename: "big.bin", type: "application/octet-stream", size: 1, disposition: "attachment", contentId: "" }] });
  const res = await page.request.post(`/a/${loadState().accountId}/compose/send`, {
    multipart: { draft, file0: { name: "big.bin", mimeType: "application/octet-stream", buffer: Buffer.alloc(17 * 1024 * 1024, 1) } },
  });
  expect(res.status()).toBe(413);
  expect(((await res.json()) as { errors: Record<string, string> }).errors._form).toMatch(/larger than 16 MB/);
});
