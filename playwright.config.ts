import { defineConfig } from "@playwright/test";

// One port for the whole run: the config is evaluated again in each worker,
// which inherits this variable from the main process.
process.env.E2E_PORT ??= String(34_000 + (process.pid % 2000));
process.env.E2E_BASE_URL ??= `http://127.0.0.1:${process.env.E2E_PORT}`;


/**
 * End-to-end tests in Debian's Chromium (docs/stack.md §6: never `playwright
 * install`). The global setup starts the built app as the README does
 * (`tsx scripts/start.ts`, a fresh data directory with the embedded
 * PostgreSQL, or DATABASE_URL), creates staff users of each role and sends
 * real messages through the API; e2e/artifacts/ receives screenshots.
 */
export default defineConfig({
  testDir: "e2e",
  testMatch: /.*\.spec\.ts$/,
  // Per run: a concurrent run in the same tree must not wipe this one's traces.
  outputDir: `test-results/e2e-${process.env.E2E_PORT}`,
  globalSetup: "./e2e/global-setup.ts",
  globalTeardown: "./e2e/global-teardown.ts",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  reporter: [["list"]],
  use: {
    baseURL: process.env.E2E_BASE_URL,
    viewport: { width: 1280, height: 860 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [{ name: "chromium", use: { browserName: "chromium" } }],
});
