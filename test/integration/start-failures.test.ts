import { spawnSync } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../support/test-database";

/** Install and start anywhere (ADR 0005): common start failures print one line that says what to do, no stack trace. */
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
    expect(lines).toEqual([`Mailroom could not start: 127.0.0.1:${port} is already in use (another Mailroom or another program). Stop it, or set PORT (MAILROOM_INBOUND_PORT for the inbound SMTP server) to a free port.`]);
    expect(run.stdout + run.stderr).not.toMatch(/\n\s+at /);
  }, 90_000);
});
