import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { bearer, createTestAccount } from "../support/fixtures";
import { freePort, waitFor } from "../support/processes";
import { startTestApp } from "../support/test-app";
import { createTestDatabase } from "../support/test-database";
import { CLI, runCli } from "./cli-support";

/** `mailroom worker`: starts the workers on the shared database and stops cleanly on a signal. */
function startWorker(databaseUrl: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [CLI, "worker"], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "info", MAILROOM_INBOUND_PORT: "0", MAILROOM_SUBMISSION_PORT: "0", MAILROOM_SUBMISSION_TLS_PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${output}`)), 45_000);
    child.stdout.on("data", () => {
      if (output.includes('"msg":"worker started"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => reject(new Error(`worker exited with ${code}: ${output}`)));
  });
  return { child, started, exited, output: () => output };
}

async function workerConnections(databaseUrl: string): Promise<number> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'mailroom-%' AND pid <> pg_backend_pid()",
    );
    return rows[0]!.n;
  } finally {
    await c.end();
  }
}

describe("mailroom worker", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`runs against the database until ${signal}, then exits 0 and closes its connections`, async () => {
      const url = await createTestDatabase();
      const worker = startWorker(url);
      await worker.started;
      expect(await workerConnections(url)).toBeGreaterThan(0);
      worker.child.kill(signal);
      const code = await Promise.race([worker.exited, new Promise((r) => setTimeout(() => r("timeout"), 20_000))]);
      expect(code, worker.output()).toBe(0);
      expect(worker.output()).toContain('"msg":"worker stopping"');
      expect(await workerConnections(url)).toBe(0);
    });
  }

  it("delivers what an app process without workers accepted, and counts it on its own /metrics", async () => {
    const app = await startTestApp({ MAILROOM_WORKERS: "off" });
    const metricsPort = await freePort();
    const worker = startWorker(app.ctx.database.url, { MAILROOM_WORKER_METRICS_PORT: String(metricsPort), MAILROOM_METRICS_TOKEN: "worker-scrape" });
    try {
      const account = await createTestAccount(app.ctx);
      const res = await app.fetch("/api/v1/email", {
        method: "POST",
        headers: bearer(account.apiKey),
        body: JSON.stringify({
          From: { name: "Shop", email: "shop@example.com" },
          To: [{ name: "Ann", email: "ann@example.org" }],
          Subject: "Order shipped",
          ContentType: "Text",
          PlainContent: "Your order is on its way.",
        }),
      });
      expect(res.status).toBe(200);
      const { MessageID } = (await res.json()) as { MessageID: string };
      await worker.started;
      const events = await waitFor(
        "the delivered event",
        async () => {
          const r = await app.fetch(`/api/v1/events?MessageID=${MessageID}`, { headers: bearer(account.apiKey) });
          const body = (await r.json()) as { Events: { Event: string }[] };
          return body.Events.some((e) => e.Event === "delivered") ? body.Events : undefined;
        },
        30_000,
        250,
      );
      expect(events.map((e) => e.Event).sort()).toEqual(["accepted", "delivered"]);
      // The delivery happened in the worker: only its /metrics can count it.
      const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
      const scraped = await fetch(metricsUrl, { headers: { Authorization: "Bearer worker-scrape" } });
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toMatch(/^mailroom_deliveries_total\{outcome="delivered"\} 1$/m);
      const unauthorised = await fetch(metricsUrl);
      expect(unauthorised.status).toBe(401);
      expect(((await unauthorised.json()) as { Errors: { Code: number }[] }).Errors[0]!.Code).toBe(1);
      expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
    } finally {
      worker.child.kill("SIGTERM");
      await worker.exited;
      await app.stop();
    }
  });

  it("refuses to start the embedded database itself (an app that joined it would lose it)", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-worker-"));
    try {
      const r = await runCli(["worker"], { DATABASE_URL: undefined, MAILROOM_DATA_DIR: dataDir });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `error: No Mailroom database is running in ${dataDir}: start the app first (npm start, with MAILROOM_WORKERS=off to leave delivery to workers), or set DATABASE_URL\n`,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
