import { expect, test, type Page } from "@playwright/test";
import nodemailer from "nodemailer";
import { createAccount } from "../lib/domain/accounts/accounts";
import { grantMembership } from "../lib/domain/staff/staff-users";
import { openDatabase } from "../lib/storage/database";
import { aggregateReportXml, gzipOf, reportMail } from "../test/support/dmarc-reports";
import { seriousViolations } from "./support/axe";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * The Deliverability page (docs/adr/0519): the daily bounce and complaint rates with
 * their charts drawn, each domain's health, the DMARC sources and the bulk-sender
 * readiness, for admin and marketing; support is refused. On a server without the
 * reputation and DMARC endpoints (404) the page still has every section: the rates
 * without thresholds, "no DMARC reports yet".
 */

const nav = (page: Page) => page.getByRole("navigation", { name: "Main" }).getByRole("link");

/** Every section, the charts drawn over their placeholders. */
async function seeSections(page: Page): Promise<void> {
  await expect(page.getByRole("heading", { name: "Deliverability", level: 1 })).toBeVisible();
  for (const chart of ["chart-bounce-rate", "chart-complaint-rate"]) {
    await expect(page.getByTestId(chart).locator("[data-drawn=true]")).toBeVisible();
    await expect(page.getByTestId(chart).locator(".chart-line")).toHaveCount(1);
  }
  await expect(page.getByTestId("domains-section")).toBeVisible();
  await expect(page.getByTestId("dmarc-section")).toBeVisible();
  await expect(page.getByTestId("readiness-section")).toBeVisible();
}

test("admin sees the rates, the demo domain's health, its DMARC sources and the readiness verdict", async ({ page }) => {
  const { accountId } = loadState();
  await signIn(page, "admin");
  await page.goto(`/a/${accountId}`);
  await nav(page).filter({ hasText: "Deliverability" }).click();
  await expect(page).toHaveURL(new RegExp(`/a/${accountId}/deliverability$`));
  await seeSections(page);

  // The bounced message of the setup is in today's bounce rate (the chart's table: the last row is today).
  const today = new Date().toISOString().slice(0, 10);
  const lastRow = page.getByTestId("chart-bounce-rate").locator("tbody tr").last();
  await expect(lastRow.locator("th")).toHaveText(today);
  await expect(lastRow.locator("td")).not.toHaveText("0%");
  await expect(page.getByTestId("chart-bounce-rate").locator("tbody tr")).toHaveCount(30);

  // GET /reputation's status, windows and thresholds; each chart draws its warning and pause lines.
  const reputation = page.getByTestId("reputation");
  await expect(reputation).toContainText("Last day");
  await expect(reputation).toContainText("Warning at 2.5% bounces or 0.04% complaints, pause at 5% or 0.08%");
  await expect(page.getByTestId("chart-bounce-rate").locator("[data-reference]")).toHaveCount(2);
  await expect(page.getByTestId("chart-complaint-rate").locator("[data-reference]")).toHaveCount(2);

  // The demo domain of the first start, with its checks or the way to run them; no DMARC reports.
  await expect(page.getByTestId("domain-health").filter({ hasText: "example.com" }).first()).toBeVisible();
  await expect(page.getByTestId("dmarc-domain").first().getByTestId("dmarc-empty")).toContainText("No DMARC reports yet");

  // Seven rules; this run delivers to the sandbox over http://, so TLS and one-click unsubscribe warn with why.
  const lines = page.getByTestId("readiness-line");
  await expect(lines).toHaveCount(7);
  await expect(lines.filter({ hasText: "TLS" })).toHaveAttribute("data-status", "warn");
  await expect(lines.filter({ hasText: "TLS" })).toContainText("Sandbox delivery");
  await expect(lines.filter({ hasText: "One-click unsubscribe" })).toContainText("RFC 8058 needs an HTTPS link");
  await expect(page.getByTestId("readiness-verdict")).not.toHaveAttribute("data-status", "pass");
});

test("marketing sees every section, read-only, without the link to the admin's settings", async ({ page }) => {
  const { accountId } = loadState();
  await signIn(page, "marketing");
  await expect(nav(page)).toHaveText(["Overview", "Deliverability", "Events"]);
  await page.goto(`/a/${accountId}/deliverability`);
  await seeSections(page);
  await expect(page.getByTestId("domains-section").getByRole("link", { name: /Settings/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /Check DNS|Verify|Resume/ })).toHaveCount(0);
});

test("support may not open the page: no link, and the URL answers 403", async ({ page }) => {
  const { accountId } = loadState();
  await signIn(page, "support");
  await expect(nav(page).filter({ hasText: "Deliverability" })).toHaveCount(0);
  const res = await page.goto(`/a/${accountId}/deliverability`);
  expect(res?.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "Your role may not open this page" })).toBeVisible();
  await expect(page.getByTestId("rates-section")).toHaveCount(0);
});

test("the account-less URL opens the default account's page", async ({ page }) => {
  const { accountId } = loadState();
  await signIn(page, "marketing");
  await page.goto("/deliverability");
  await expect(page).toHaveURL(new RegExp(`/a/${accountId}/deliverability$`));
});

test("the page with its charts drawn is axe-clean at 1280 and 390 px, light and dark", async ({ page }) => {
  const { accountId } = loadState();
  await signIn(page, "admin");
  for (const theme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: theme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 860 });
      await page.goto(`/a/${accountId}/deliverability`);
      await page.evaluate((t) => document.documentElement.classList.toggle("dark", t === "dark"), theme);
      await seeSections(page);
      expect(await seriousViolations(page), `${theme} ${width}px`).toEqual([]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${theme} ${width}px overflow`).toBeLessThanOrEqual(1);
      await shot(page, `deliverability-${width}-${theme}`);
    }
  }
});

test("a DMARC report received by SMTP shows its sources, an address that is not the instance's flagged", async ({ page }) => {
  const { databaseUrl, users, inboundPort } = loadState();
  const database = openDatabase(databaseUrl, { max: 1 });
  let accountId: string;
  try {
    accountId = (await createAccount(database, { name: "Reported", plan: "growth", domain: "reported.test", verified: true })).accountId;
    await grantMembership(database, users.admin.email, accountId, "admin");
  } finally {
    await database.close();
  }
  const xml = aggregateReportXml({ domain: "reported.test", reportId: `e2e-${accountId}`, records: [{ ip: "198.51.100.7", count: 35, dkim: "fail", spf: "fail" }] });
  const raw = reportMail({ to: "dmarc@bounces.reported.test", attachment: gzipOf(xml), contentType: "application/gzip", filename: "google.com!reported.test!1!2.xml.gz" });
  const t = nodemailer.createTransport({ host: "127.0.0.1", port: inboundPort, secure: false, ignoreTLS: true, connectionTimeout: 10_000 });
  try {
    const sent = await t.sendMail({ envelope: { from: "noreply-dmarc-support@google.com", to: ["dmarc@bounces.reported.test"] }, raw });
    expect(sent.response).toMatch(/^250/);
  } finally {
    t.close();
  }

  await signIn(page, "admin");
  await page.goto(`/a/${accountId}/deliverability`);
  const section = page.getByTestId("dmarc-domain").filter({ hasText: "reported.test" });
  const source = section.getByTestId("dmarc-source").filter({ hasText: "198.51.100.7" });
  await expect(source).toHaveAttribute("data-known", "false");
  await expect(source).toContainText("unknown sender");
  await expect(source).toContainText("35");
  await shot(page, "deliverability-dmarc-sources");
});
