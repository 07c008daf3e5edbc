import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import nodemailer from "nodemailer";
import { createAccount } from "../lib/domain/accounts/accounts";
import { openDatabase } from "../lib/storage/database";
import { actionId, callAction } from "./support/actions";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * The Inbound page (docs/contract.md §13): a route added in the dashboard,
 * a real reply sent over SMTP to the app's inbound port, posted to a real
 * receiver on 127.0.0.1 (the e2e app allows private webhook URLs), then seen
 * in the list, in its detail view (headers, safe HTML frame, attachment,
 * attempts, retry) and on the timeline of the message it answers. A forged
 * Origin and another account's ids are refused.
 */

interface Post {
  webhookId: string;
  body: { MessageID: string; Subject: string; RepliedToMessageID: string | null };
}

function startReceiver() {
  const posts: Post[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      posts.push({ webhookId: String(req.headers["webhook-id"] ?? ""), body: JSON.parse(Buffer.concat(chunks).toString() || "{}") });
      res.writeHead(200, { "Content-Type": "text/plain" }).end("thanks-from-the-app");
    });
  });
  return {
    posts,
    listen: () => new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/inbound`))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function sendOverSmtp(mail: nodemailer.SendMailOptions): Promise<string> {
  const t = nodemailer.createTransport({ host: "127.0.0.1", port: loadState().inboundPort, secure: false, ignoreTLS: true, connectionTimeout: 10_000 });
  try {
    return (await t.sendMail(mail)).response;
  } finally {
    t.close();
  }
}

async function addRoute(page: Page, match: string, url: string) {
  await page.getByLabel("Address or *@domain").fill(match);
  await page.getByLabel("Post to URL").fill(url);
  await page.getByRole("button", { name: "Add route" }).click();
  await expect(page.locator('[data-testid="route-row"]').filter({ hasText: match })).toBeVisible();
}

const ACTIONS_FILE = "app/(dashboard)/a/[account]/inbound/actions.ts";

test("a reply sent over SMTP is posted, listed, shown with its details, retried and linked both ways", async ({ page }) => {
  const { accountId, messages } = loadState();
  const receiver = startReceiver();
  const hookUrl = await receiver.listen();
  try {
    await signIn(page, "admin");
    await page.goto(`/a/${accountId}/inbound`);
    await expect(page.getByRole("heading", { name: "Inbound", exact: true })).toBeVisible();

    // A domain the account has not verified is refused on its field.
    await page.getByLabel("Address or *@domain").fill("help@not-ours.example");
    await page.getByLabel("Post to URL").fill(hookUrl);
    await page.getByRole("button", { name: "Add route" }).click();
    await expect(page.getByText("The domain is not a verified domain of this account").first()).toBeVisible();

    await addRoute(page, "support@example.com", hookUrl);

    // A real reply to the seeded message, as a mail client writes it: In-Reply-To names Mailroom's Message-ID.
    const subject = `Re: Welcome to Mailroom ${Date.now()}`;
    const answer = await sendOverSmtp({
      envelope: { from: "ann@example.org", to: ["support+ticket-9@example.com"] },
      from: { name: "Ann Example", address: "ann@example.org" },
      to: "Support <support+ticket-9@example.com>",
      subject,
      inReplyTo: `<${messages.engaged}@example.com>`,
      text: "Thanks, it works.\n\nOn Mon, Demo wrote:\n> Hello Ann",
      html: '<p>Thanks, <b>it works</b>.</p><img src="https://tracker.example/pixel.gif" alt=""><script>document.title="pwned"</script>',
      attachments: [{ filename: "notes.txt", content: "attached notes", contentType: "text/plain" }],
    });
    expect(answer).toMatch(/^250/);
    const post = await until("the POST to the receiver", () => receiver.posts.find((p) => p.body.Subject === subject));
    expect(post.body.RepliedToMessageID).toBe(messages.engaged);
    const inboundId = post.body.MessageID;

    // The list: the row with its status, delivered once the receiver said 200.
    await page.reload();
    const row = page.locator(`[data-testid="inbound-row"][data-message-id="${inboundId}"]`);
    await expect(row).toContainText(subject);
    await expect(row).toContainText("support+ticket-9@example.com");
    await expect(row.getByTestId("inbound-status")).toHaveAttribute("data-status", "delivered");
    await shot(page, "inbound-list");

    // The detail view.
    await row.getByRole("link", { name: subject }).click();
    await expect(page).toHaveURL(new RegExp(`/a/${accountId}/inbound/${inboundId}$`));
    await expect(page.getByTestId("inbound-subject")).toHaveText(subject);
    await expect(page.getByTestId("replied-to")).toHaveText(messages.engaged);
    await expect(page.getByTestId("inbound-attachment")).toContainText("notes.txt");
    await expect(page.getByRole("table", { name: "Headers" })).toContainText("In-Reply-To");
    await expect(page.getByTestId("inbound-attempt")).toHaveCount(1);
    await expect(page.getByTestId("inbound-attempt")).toContainText("200");
    await expect(page.getByTestId("inbound-attempt")).toContainText("thanks-from-the-app");
    // The HTML is in the sandbox's frame: no scripts (its title stays), the body shown.
    const frame = page.getByTestId("inbound-html");
    await expect(frame).toHaveAttribute("sandbox", "allow-popups");
    await expect(page.frameLocator('[data-testid="inbound-html"]').locator("b")).toHaveText("it works");
    expect(await page.title()).not.toContain("pwned");
    await shot(page, "inbound-detail");

    // Post again: a second POST with the same webhook-id, logged as a second attempt.
    await page.getByTestId("retry-inbound").click();
    await expect(page.getByTestId("retry-result")).toContainText("Queued");
    await until("the second POST", () => (receiver.posts.filter((p) => p.body.MessageID === inboundId).length === 2 ? true : undefined));
    const ids = receiver.posts.filter((p) => p.body.MessageID === inboundId).map((p) => p.webhookId);
    expect(ids[0]).toBe(`msg_mailroom_inbound_${inboundId}`);
    expect(ids[1]).toBe(ids[0]);
    await expect(async () => {
      await page.reload();
      await expect(page.getByTestId("inbound-attempt")).toHaveCount(2, { timeout: 1000 });
    }).toPass({ timeout: 15_000 });

    // The outbound message's timeline shows the reply, linked back.
    await page.getByTestId("replied-to").getByRole("link").click();
    await expect(page).toHaveURL(new RegExp(`/a/${accountId}/messages/${messages.engaged}$`));
    const reply = page.getByTestId("message-reply");
    await expect(reply).toContainText(subject);
    await expect(reply).toContainText("ann@example.org");
    await shot(page, "inbound-reply-on-timeline");
    await reply.getByRole("link", { name: subject }).click();
    await expect(page).toHaveURL(new RegExp(`/a/${accountId}/inbound/${inboundId}$`));
  } finally {
    await receiver.close();
  }
});

test("a forged Origin, another account's message and another account's route are refused", async ({ page }) => {
  const { accountId, databaseUrl } = loadState();
  const receiver = startReceiver();
  const hookUrl = await receiver.listen();
  const database = openDatabase(databaseUrl, { max: 1 });
  try {
    // Another account with its own route and a message received for it.
    const other = await createAccount(database, { name: `Inbound other ${Date.now()}`, plan: "growth", domain: "other-inbound.test", verified: true });
    const created = await fetch(`${loadState().url}/api/v1/inbound/routes`, {
      method: "POST",
      headers: { Authorization: `Bearer ${other.apiKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({ Match: "*@other-inbound.test", WebhookURL: hookUrl }),
    });
    expect(created.status).toBe(200);
    const otherRouteId = ((await created.json()) as { RouteID: number }).RouteID;
    expect(await sendOverSmtp({ from: "x@example.org", to: "desk@other-inbound.test", subject: "for the other account", text: "private" })).toMatch(/^250/);
    const otherMessage = await until("the other account's POST", () => receiver.posts.find((p) => p.body.Subject === "for the other account"));

    await signIn(page, "admin");
    await page.goto(`/a/${accountId}/inbound`);
    await addRoute(page, "forged@example.com", hookUrl);
    const ownRouteId = Number(await page.locator('[data-testid="route-row"]').filter({ hasText: "forged@example.com" }).getAttribute("data-route-id"));
    const routeCount = async (id: number) => Number((await database.pool.query("SELECT count(*)::int AS n FROM inbound_routes WHERE id = $1", [id])).rows[0].n);

    // The other account's message, under this account's URL: the same 404 as an unknown id; not listed either.
    expect((await page.goto(`/a/${accountId}/inbound/${otherMessage.body.MessageID}`))?.status()).toBe(404);
    expect((await page.goto(`/a/${accountId}/inbound/00000000-0000-4000-8000-000000000000`))?.status()).toBe(404);
    expect((await page.goto(`/a/${accountId}/inbound/not-an-id`))?.status()).toBe(404);
    await page.goto(`/a/${accountId}/inbound`);
    await expect(page.locator(`[data-testid="inbound-row"][data-message-id="${otherMessage.body.MessageID}"]`)).toHaveCount(0);
    await expect(page.getByText("for the other account")).toHaveCount(0);

    // Deleting the other account's route through this account's action: refused as unknown, the route stays.
    const del = actionId("deleteInboundRouteAction", ACTIONS_FILE);
    const foreign = await callAction(page.request, `/a/${accountId}/inbound`, del, [accountId, otherRouteId]);
    expect(foreign.body).toContain("That route does not exist");
    expect(await routeCount(otherRouteId)).toBe(1);
    // Retrying the other account's message: refused the same way.
    const retry = await callAction(page.request, `/a/${accountId}/inbound`, actionId("retryInboundAction", ACTIONS_FILE), [accountId, otherMessage.body.MessageID]);
    expect(retry.body).toContain("That message does not exist");

    // A forged Origin with the admin's session: the action does not run.
    const forged = await callAction(page.request, `/a/${accountId}/inbound`, del, [accountId, ownRouteId], { Origin: "https://evil.example" });
    expect(forged.status).toBe(403);
    expect(await routeCount(ownRouteId)).toBe(1);

    // From the page itself the same action works.
    await page.locator('[data-testid="route-row"]').filter({ hasText: "forged@example.com" }).getByTestId("delete-route").click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete the route" }).click();
    await expect(page.locator('[data-testid="route-row"]').filter({ hasText: "forged@example.com" })).toHaveCount(0);
    expect(await routeCount(ownRouteId)).toBe(0);
  } finally {
    await database.close();
    await receiver.close();
  }
});

test("support reads received mail but manages no routes", async ({ page }) => {
  const { accountId } = loadState();
  await signIn(page, "support");
  expect((await page.goto(`/a/${accountId}/inbound`))?.status()).toBe(200);
  await expect(page.getByRole("heading", { name: "Inbound", exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: "Add route" })).toHaveCount(0);
  await expect(page.getByTestId("delete-route")).toHaveCount(0);
  const add = await callAction(page.request, `/a/${accountId}/inbound`, actionId("createInboundRouteAction", ACTIONS_FILE), [
    accountId,
    { Match: "sneaky@example.com", WebhookURL: "http://127.0.0.1:9/x" },
  ]);
  expect(add.body).toContain("Your role may not use this");
});
