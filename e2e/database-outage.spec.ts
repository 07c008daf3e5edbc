import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { shot } from "./support/session";
import { signInAsAdminOn, startSecondApp, type SecondApp } from "./support/second-app";
import { loadState } from "./support/state";

/**
 * The dashboard while its database is down (docs/adr/0513): a second app of
 * the run's database reaches PostgreSQL through a TCP relay that the test
 * takes down (every connection cut, new ones refused) and brings back. A
 * signed-in member is told that the database is not answering, not sent to
 * sign-in (pages, server actions and route handlers alike), and is back on
 * the page once it answers, still signed in.
 */

interface Relay {
  port: number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

async function startRelay(target: { host: string; port: number }): Promise<Relay> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  const listen = () => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  let port = 0;
  await listen();
  port = (server.address() as net.AddressInfo).port;
  return {
    port,
    down: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
    up: listen,
    close: async () => {
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test.describe("a database that does not answer", () => {
  let app: SecondApp | undefined;
  let relay: Relay | undefined;
  let dataDir: string | undefined;
  test.afterAll(async () => {
    app?.child.kill("SIGTERM");
    await relay?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test("a signed-in member is told so, is not signed out, and is back on the page once it answers", async ({ page }) => {
    test.setTimeout(240_000);
    const { databaseUrl, accountId } = loadState();
    const direct = new URL(databaseUrl);
    relay = await startRelay({ host: direct.hostname, port: Number(direct.port || 5432) });
    const relayed = new URL(databaseUrl);
    relayed.hostname = "127.0.0.1";
    relayed.port = String(relay.port);
    dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-e2e-outage-"));
    app = await startSecondApp({ DATABASE_URL: relayed.toString(), MAILROOM_DATA_DIR: dataDir });
    const url = app.baseUrl;
    await signInAsAdminOn(page, url);
    await expect(page.getByTestId("current-user")).toBeVisible();
    const pageUrl = new URL(page.url());
    const accountBase = `/a/${accountId}`;
    await page.goto(`${url}${accountBase}/inbound`);
    await expect(page.getByRole("button", { name: "Add route" })).toBeVisible();

    await relay.down();
    // A server action on a page opened before says the database is not answering, not "Sign in first".
    await page.getByLabel("Address or *@domain").fill("help@example.com");
    await page.getByLabel("Post to URL").fill("https://hooks.example.com/inbound");
    await page.getByRole("button", { name: "Add route" }).click();
    await expect(page.getByText(/The database is unavailable for a moment/).first()).toBeVisible({ timeout: 30_000 });
    await expect(page.getByText("Sign in first")).toHaveCount(0);
    // So does a route handler (the CSV export): 503 with the message and Retry-After.
    const exported = await page.evaluate(async (path) => {
      const res = await fetch(path);
      return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.text() };
    }, `${accountBase}/events/export`);
    expect(exported.status).toBe(503);
    expect(exported.retryAfter).toBe("5");
    expect(JSON.parse(exported.body).error).toMatch(/The database is unavailable for a moment/);

    await page.goto(`${url}${pageUrl.pathname}`);
    await expect(page).toHaveURL(/\/unavailable\?next=/, { timeout: 30_000 });
    expect(new URL(page.url()).searchParams.get("next")).toBe(pageUrl.pathname);
    await expect(page.getByRole("heading", { name: "The database is not answering" })).toBeVisible();
    await expect(page.getByText("You are still signed in")).toBeVisible();
    await expect(page.getByTestId("unavailable-countdown")).toContainText("Trying again");
    await shot(page, "database-unavailable", { fullPage: false });
    // Still down: the page's own retry comes back here.
    await page.waitForTimeout(6_000);
    await expect(page).toHaveURL(/\/unavailable\?next=/);

    await relay.up();
    // The countdown reloads the page; the session, never ended, opens it.
    await expect(page).toHaveURL(`${url}${pageUrl.pathname}`, { timeout: 30_000 });
    await expect(page.getByTestId("current-user")).toBeVisible();
  });

  test("the page of an unanswering database sends nobody off this app", async ({ page }) => {
    // An absolute URL keeps only its path on this app; a protocol-relative one falls back to the home page.
    for (const [next, href] of [
      ["https://evil.example/phish", "/phish"],
      ["//evil.example/phish", "/"],
      ["/a/some-account/events?x=1", "/a/some-account/events?x=1"],
    ]) {
      await page.goto(`/unavailable?next=${encodeURIComponent(next!)}`);
      await expect(page.getByTestId("unavailable-retry")).toHaveAttribute("href", href!);
    }
  });
});
