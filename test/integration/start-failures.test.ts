import { spawnSync } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../lib/storage/database";
import { createTestDatabase } from "../support/test-database";

/** Issue 12 §2: common start failures print one line that says what to do, no stack trace. */
const root = path.resolve(import.meta.dirname, "../..");

describe("npm start failures", () => {
  const servers: net.Server[] = [];
  afterAll(() => {
    for (const s of servers) s.close();
  });

  it("a port in use: one line naming it, exit 1", async () => {
    const busy = net.createServer();
    servers.push(busy);
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const port = (busy.address() as net.AddressInfo).port;
    const run = spawnSync(path.join(root, "node_modules/.bin/tsx"), ["scripts/start.ts"], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: await createTestDatabase(), HOST: "127.0.0.1", PORT: String(port), MAILROOM_DASHBOARD: "off", MAILROOM_INBOUND_PORT: "0", MAILROOM_SUBMISSION_PORT: "0", MAILROOM_SUBMISSION_TLS_PORT: "0", LOG_LEVEL: "warn" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    const lines = run.stderr.trim().split("\n");
    expect(lines).toEqual([`Mailroom could not start: 127.0.0.1:${port} (HTTP: API and dashboard; PORT) is already in use (another Mailroom or another program). Stop it, or set PORT to a free port.`]);
    expect(run.stdout + run.stderr).not.toMatch(/\n\s+at /);
  }, 90_000);

  it("the inbound port in use on the first start: fails before provisioning, naming the port and MAILROOM_INBOUND_PORT; no account and no admin exist", async () => {
    const busy = net.createServer();
    servers.push(busy);
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const inbound = (busy.address() as net.AddressInfo).port;
    const databaseUrl = await createTestDatabase();
    const started = Date.now();
    const run = spawnSync(path.join(root, "node_modules/.bin/tsx"), ["scripts/start.ts"], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl, PORT: "0", MAILROOM_DASHBOARD: "off", MAILROOM_INBOUND_PORT: String(inbound), MAILROOM_SUBMISSION_PORT: "0", MAILROOM_SUBMISSION_TLS_PORT: "0", LOG_LEVEL: "warn" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split("\n")).toEqual([
      `Mailroom could not start: 127.0.0.1:${inbound} (inbound SMTP: bounces and complaints; MAILROOM_INBOUND_PORT) is already in use (another Mailroom or another program). Stop it, or set MAILROOM_INBOUND_PORT to a free port.`,
    ]);
    expect(run.stdout).not.toMatch(/API key|mr_/);
    expect(Date.now() - started).toBeLessThan(50_000); // no PostgreSQL started, no migrations: tsx's compile is most of it
    const database = openDatabase(databaseUrl, { max: 1 });
    try {
      const { rows } = await database.pool.query<{ accounts: number; staff: number; marker: number }>(
        "SELECT (SELECT count(*)::int FROM accounts) AS accounts, (SELECT count(*)::int FROM staff_users) AS staff, (SELECT count(*)::int FROM instance_settings WHERE key = 'installed_at') AS marker",
      );
      expect(rows[0]).toEqual({ accounts: 0, staff: 0, marker: 0 });
    } finally {
      await database.close();
    }
  }, 90_000);
});
