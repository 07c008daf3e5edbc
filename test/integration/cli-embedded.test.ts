import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startAppProcess, startWorkerProcess, waitFor } from "../support/processes";
import { runCli, runCliJson } from "./cli-support";

/**
 * Without DATABASE_URL the CLI starts the embedded PostgreSQL server on
 * MAILROOM_DATA_DIR, does its work and stops the server again; the next call
 * finds the same data.
 */
describe("mailroom on the embedded database", () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-cli-embedded-"));
  const env = { DATABASE_URL: undefined, MAILROOM_DATA_DIR: dataDir, MAILROOM_EMBEDDED_PG_PORT: "0" };
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("keeps what one call created for the next call, and leaves no server running", async () => {
    const created = await runCliJson<{ accountId: string; apiKey: string }>(["accounts", "create", "--name", "Laptop", "--plan", "unlimited"], env);
    expect(created.apiKey).toMatch(/^mr_/);
    const list = await runCliJson<{ accountId: string; name: string }[]>(["accounts", "list"], env);
    expect(list).toEqual([expect.objectContaining({ accountId: created.accountId, name: "Laptop" })]);
    // The server this CLI started was stopped: no postmaster.pid is left in the data directory.
    const { existsSync } = await import("node:fs");
    expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
  }, 120_000);

  it("runs from a subdirectory of the checkout", async () => {
    const r = await runCli(["plans", "--json"], {}, path.resolve(import.meta.dirname));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(5);
  });

  it("shares the running app's embedded server: a key made by the CLI works at once against the app", async () => {
    const app = await startAppProcess({ DATABASE_URL: "", MAILROOM_DATA_DIR: dataDir, MAILROOM_EMBEDDED_PG_PORT: "0" });
    try {
      const shop = await runCliJson<{ accountId: string; apiKey: string }>(
        ["accounts", "create", "--name", "Shop", "--plan", "trial", "--domain", "shop.example", "--verified"],
        env,
      );
      const res = await fetch(`${app.url}/api/v1/events`, { headers: { Authorization: `Bearer ${shop.apiKey}` } });
      expect(res.status).toBe(200);
      // The CLI connected to the app's server and left it running.
      expect((await fetch(`${app.url}/readyz`)).status).toBe(200);

      // A worker joins the app's server too, and leaves it running when it stops.
      const worker = startWorkerProcess({ ...env, DATABASE_URL: "", LOG_LEVEL: "info" });
      await waitFor("the worker", async () => {
        if (worker.child.exitCode !== null) throw new Error(worker.output());
        return worker.output().includes('"msg":"worker started"');
      }, 60_000);
      await worker.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
      expect((await fetch(`${app.url}/readyz`)).status).toBe(200);
    } finally {
      await app.kill("SIGTERM");
    }
  }, 120_000);
});
