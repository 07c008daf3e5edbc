import { spawn } from "node:child_process";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createTestDatabase } from "../support/test-database";
import { CLI } from "./cli-support";

/** `mailroom worker`: starts the workers on the shared database and stops cleanly on a signal. */
function startWorker(databaseUrl: string) {
  const child = spawn(process.execPath, [CLI, "worker"], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "info", MAILROOM_INBOUND_PORT: "0" },
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
});
