/**
 * `npm run bench:dashboard`: the dashboard benchmark (docs/BENCHMARKS.md).
 *
 * Starts the built app as the README does (tsx scripts/start.ts, a fresh
 * data directory with the embedded PostgreSQL), fills the default account
 * with BENCH_EVENTS (default 1,000,000) events spread over the last 30 days
 * (bulk SQL, e2e/support/synthetic-events.ts, a day at a time, oldest
 * first, as a live log grows), beside BENCH_NEIGHBOURS (default 99) small
 * accounts in the same partitions, rolls up the hourly summaries as the
 * maintenance job keeps them, then times in Debian's Chromium:
 *   - the overview render: navigation to /?range=… until the KPI cards and
 *     the chart lines are on screen (target < 1 s at 100 million events),
 *     and until a tooltip answers a hover (target < 1.5 s at 1 million);
 *   - an events filter change: a new type in the select until the new rows
 *     and total are on screen, measured in the page (target < 300 ms).
 * Prints a table and writes bench/results/dashboard.json.
 *
 * Env: BENCH_EVENTS, BENCH_NEIGHBOURS, BENCH_RUNS (default 7), CHROMIUM_PATH.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Page } from "@playwright/test";
import pg from "pg";
import { createAccount } from "../lib/domain/accounts/accounts";
import { rollupEventCounts } from "../lib/domain/events/event-counts";
import { openDatabase } from "../lib/storage/database";
import { startEmbeddedPostgres } from "../lib/storage/embedded";
import { freePort, startApp } from "../e2e/support/start-app";
import { insertSyntheticEvents } from "../e2e/support/synthetic-events";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const NEIGHBOURS = Number(process.env.BENCH_NEIGHBOURS ?? 99);
const DAYS = 30;
const DAY = 86_400;
const ENGAGEMENT_SHARE = 0.2;

function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { median: Math.round(at(0.5)), p90: Math.round(at(0.9)), min: Math.round(s[0]!), max: Math.round(s[s.length - 1]!) };
}

/**
 * Navigation to the overview: first byte, KPI cards on screen (server-rendered), chart lines drawn (recharts,
 * after hydration, docs/adr/0517), and a tooltip answering a hover over the newest bucket (the charts interactive).
 */
async function timeOverview(page: Page, range: string): Promise<{ ttfb: number; kpis: number; chart: number; tooltip: number }> {
  await page.mouse.move(0, 0);
  const t0 = Date.now();
  await page.goto(`/?range=${range}`, { waitUntil: "commit" });
  const ttfb = Date.now() - t0;
  await page.getByTestId("kpi-delivered-count").waitFor();
  const kpis = Date.now() - t0;
  const counts = page.getByTestId("chart-counts");
  await counts.locator(".chart-line path.recharts-line-curve").first().waitFor();
  const chart = Date.now() - t0;
  const box = await counts.locator(".recharts-line-dots").first().locator("circle").last().boundingBox();
  if (!box) throw new Error("no dot to hover");
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await counts.getByTestId("chart-tooltip").waitFor();
  return { ttfb, kpis, chart, tooltip: Date.now() - t0 };
}

/** Changes the type select in the page and waits (per animation frame) for the new result to be drawn. */
async function timeFilterChange(page: Page, type: string): Promise<number> {
  return page.evaluate(async (value) => {
    const select = document.querySelector<HTMLSelectElement>("#filter-type")!;
    const results = document.querySelector('[data-testid="events-results"]')!;
    const before = document.querySelector('[data-testid="events-total"]')?.textContent;
    const t0 = performance.now();
    select.value = value;
    select.dispatchEvent(new Event("change", { bubbles: true }));
    for (;;) {
      await new Promise((r) => requestAnimationFrame(r));
      const total = document.querySelector('[data-testid="events-total"]')?.textContent;
      if (results.getAttribute("aria-busy") === "false" && location.search.includes(value) && total !== before) {
        return performance.now() - t0;
      }
      if (performance.now() - t0 > 10_000) throw new Error(`no result for ${value} after 10 s`);
    }
  }, type);
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-bench-dash-"));
  const port = await freePort();
  console.log(`Starting the app (data in ${dataDir}, port ${port})…`);
  const app = await startApp({
    PORT: String(port),
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_EMBEDDED_PG_PORT: "0",
    MAILROOM_INBOUND_PORT: "0",
    MAILROOM_SUBMISSION_PORT: "0",
    MAILROOM_SUBMISSION_TLS_PORT: "0",
    MAILROOM_SANDBOX_PORT: "0",
    LOG_LEVEL: "warn",
  });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  });
  try {
    if (!app.adminEmail || !app.adminPassword) throw new Error("no first-start report");
    const { url: dbUrl } = await startEmbeddedPostgres({ dataDir, port: 0 });
    const db = new pg.Client({ connectionString: dbUrl });
    await db.connect();
    const { rows } = await db.query<{ id: string }>("SELECT id FROM accounts WHERE is_default ORDER BY created_at LIMIT 1");
    const accountId = rows[0]!.id;
    const end = Math.floor(Date.now() / 1000);
    const engagement = Math.round(EVENTS * ENGAGEMENT_SHARE);
    const messages = Math.round((EVENTS - engagement) / 4);
    const t0 = Date.now();
    // A day at a time, oldest first: every index grows at its right edge, as a live log's do (one statement
    // for the whole month sorts it all in temporary files first). A seed per day keeps the message ids apart.
    let inserted = 0;
    for (let day = DAYS; day >= 1; day--) {
      const share = (total: number) => Math.floor(((DAYS - day + 1) * total) / DAYS) - Math.floor(((DAYS - day) * total) / DAYS);
      const dayMessages = share(messages);
      inserted += await insertSyntheticEvents(db, {
        accountId, messages: dayMessages, engagement: share(EVENTS - messages * 4), start: end - day * DAY, end: end - (day - 1) * DAY, seed: `bench-${day}:`,
      });
      if (process.env.BENCH_LOAD_PROGRESS) console.error(`loaded day -${day}: ${inserted} events, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
    const database = openDatabase(dbUrl, { max: 2 });
    try {
      // A shared instance: the neighbours' events sit in the same day partitions as the big account's.
      for (let n = 0; n < NEIGHBOURS; n++) {
        const small = await createAccount(database, { name: `Neighbour ${n + 1}`, plan: "starter", domain: `n${n + 1}.example.org`, verified: true });
        inserted += await insertSyntheticEvents(db, { accountId: small.accountId, messages: 200, engagement: 200, start: end - DAYS * DAY, end, seed: `n${n}:` });
      }
      // Three streams, so that the overview's breakdown by tag has rows (docs/adr/0517).
      await db.query("UPDATE messages SET tags = ARRAY[(ARRAY['receipts', 'password-resets', 'digest'])[1 + abs(hashtext(id::text)) % 3]] WHERE account_id = $1", [accountId]);
      await db.query("VACUUM ANALYZE events");
      await db.query("VACUUM ANALYZE messages");
      // Steady state: the hourly summaries of the past exist, as the maintenance job keeps them.
      await rollupEventCounts(database, accountId);
      await db.query("VACUUM ANALYZE event_hour_counts");
      await db.query("VACUUM ANALYZE event_hour_breakdowns");
    } finally {
      await database.close();
    }
    const loadSeconds = (Date.now() - t0) / 1000;
    const { rows: countRows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE account_id = $1", [accountId]);
    const { rows: sizeRows } = await db.query<{ bytes: number }>(
      "SELECT sum(pg_total_relation_size(inhrelid))::bigint AS bytes FROM pg_inherits WHERE inhparent = 'events'::regclass",
    );
    await db.end();
    console.log(
      `Inserted ${inserted.toLocaleString("en-US")} events (${countRows[0]!.n.toLocaleString("en-US")} in the account) in ${loadSeconds.toFixed(1)} s; ` +
        `events table ${(sizeRows[0]!.bytes / 1e6).toFixed(0)} MB`,
    );

    const context = await browser.newContext({ baseURL: app.url, viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    await page.goto("/login");
    await page.getByLabel("Email").fill(app.adminEmail);
    await page.getByLabel("Password").fill(app.adminPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    // The first-start admin is offered a password change after sign-in: go on without it.
    await page.waitForURL((url) => url.pathname !== "/login");
    if (new URL(page.url()).pathname === "/account/password") await page.getByRole("link", { name: "Not now" }).click();
    await page.getByTestId("kpi-delivered-count").waitFor({ timeout: 60_000 }).catch(async (err: unknown) => {
      mkdirSync("e2e/artifacts", { recursive: true });
      await page.screenshot({ path: "e2e/artifacts/bench-sign-in-failed.png", fullPage: true });
      throw err;
    });

    const results: Record<string, ReturnType<typeof stats>> = {};
    for (const range of ["24h", "7d", "30d"]) {
      await timeOverview(page, range); // warm-up
      const samples: Array<{ ttfb: number; kpis: number; chart: number; tooltip: number }> = [];
      for (let i = 0; i < RUNS; i++) samples.push(await timeOverview(page, range));
      results[`overview ${range}: first byte`] = stats(samples.map((s) => s.ttfb));
      results[`overview ${range}: KPIs shown`] = stats(samples.map((s) => s.kpis));
      results[`overview ${range}: charts drawn`] = stats(samples.map((s) => s.chart));
      results[`overview ${range}: tooltip answers hover`] = stats(samples.map((s) => s.tooltip));
      console.log(`overview ${range}: tooltip answers hover at ${results[`overview ${range}: tooltip answers hover`]!.median} ms (median of ${RUNS})`);
    }

    // A picture of the overview with a month of traffic (for docs/screenshots).
    mkdirSync("e2e/artifacts", { recursive: true });
    await timeOverview(page, "30d");
    await page.screenshot({ path: "e2e/artifacts/bench-overview-30d.png", fullPage: true });

    await page.goto("/events");
    await page.getByTestId("event-row").first().waitFor();
    const types = ["delivered", "opened", "failed", "clicked", "accepted", "rejected", "unsubscribed", "complained"];
    await timeFilterChange(page, "complained"); // warm-up
    const samples: number[] = [];
    for (let i = 0; i < RUNS; i++) for (const t of types) samples.push(await timeFilterChange(page, t === "complained" && i === 0 ? "opened" : t));
    results["events filter change (type)"] = stats(samples);

    const load = os.loadavg().map((n) => n.toFixed(1)).join(" ");
    console.log(`\nDashboard with ${countRows[0]!.n.toLocaleString("en-US")} events, ${RUNS} runs each (ms); load average ${load} on ${os.cpus().length} cores:`);
    console.log("| Scenario | median | p90 | min | max |\n|---|---|---|---|---|");
    for (const [name, s] of Object.entries(results)) console.log(`| ${name} | ${s.median} | ${s.p90} | ${s.min} | ${s.max} |`);
    mkdirSync("bench/results", { recursive: true });
    writeFileSync("bench/results/dashboard.json", JSON.stringify({ events: countRows[0]!.n, runs: RUNS, loadavg: os.loadavg(), results, at: new Date().toISOString() }, null, 2));
    await context.close();
  } finally {
    await browser.close();
    const exited = new Promise((r) => app.child.once("exit", r));
    app.child.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
