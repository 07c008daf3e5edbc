import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAccount } from "../../lib/domain/accounts/accounts";
import { openDatabase } from "../../lib/storage/database";
import { startEmbeddedPostgres } from "../../lib/storage/embedded";
import { bearer } from "../support/fixtures";
import { startAppProcess, waitFor, type Proc } from "../support/processes";
import { alive, postmasterPid, stopLeftPostmaster } from "../support/postmaster-pid";

/**
 * The app supervises the embedded PostgreSQL server it started
 * (lib/storage/postmaster.ts, docs/adr/0202): a postmaster killed with
 * SIGKILL is logged once at error level, /healthz answers 503 while it is
 * down, the app starts it again within seconds, and a message sent after
 * the recovery is delivered by the worker processes.
 */
describe("the embedded PostgreSQL server, supervised by the app", () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-pg-supervised-"));
  let app: (Proc & { url: string }) | undefined;
  afterAll(async () => {
    await app?.kill("SIGTERM");
    stopLeftPostmaster(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("restarts a postmaster killed with SIGKILL; /healthz is 503 meanwhile; mail sent after it is delivered", async () => {
    app = await startAppProcess({ DATABASE_URL: "", MAILROOM_DATA_DIR: dataDir, MAILROOM_EMBEDDED_PG_PORT: "0", MAILROOM_WORKERS: "process", MAILROOM_WORKER_PROCESSES: "1" });
    const url = app.url;
    // The whole output (Proc keeps only its tail; the access log of each 503 is long).
    let output = "";
    app.child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
    app.child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    // The app's own server: this test joins it (owned by the app, not by the test).
    const joined = await startEmbeddedPostgres({ dataDir, port: 0 });
    expect(joined.owned).toBe(false);
    const database = openDatabase(joined.url, { max: 1 });
    const account = await createAccount(database, { name: "Supervised", plan: "unlimited", domain: "example.com", verified: true });
    await database.close();
    const send = async (subject: string) => {
      const res = await fetch(`${url}/api/v1/email`, {
        method: "POST",
        headers: bearer(account.apiKey),
        body: JSON.stringify({ From: { email: "a@example.com" }, To: [{ email: "b@example.org" }], Subject: subject, ContentType: "Text", PlainContent: "hi" }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { MessageID: string }).MessageID;
    };
    const delivered = (id: string) =>
      waitFor(`delivery of ${id}`, async () => {
        const r = await fetch(`${url}/api/v1/events?MessageID=${id}&Event=delivered`, { headers: bearer(account.apiKey) });
        return r.ok && ((await r.json()) as { TotalRecords: number }).TotalRecords === 1;
      }, 60_000, 250);
    await delivered(await send("before"));

    const killed = postmasterPid(dataDir);
    const outputBefore = output;
    process.kill(killed, "SIGKILL");
    const killedAt = Date.now();
    // Down: /healthz says so (a liveness probe would act on it).
    const down = await waitFor("/healthz 503", async () => {
      const res = await fetch(`${url}/healthz`);
      return res.status === 503 ? ((await res.json()) as { status: string }) : undefined;
    }, 5000, 20);
    expect(down.status).toBe("unhealthy");

    // Restarted by the app, by itself, within seconds.
    await waitFor("/healthz and /readyz 200 again", async () => (await fetch(`${url}/healthz`)).status === 200 && (await fetch(`${url}/readyz`)).status === 200, 20_000, 100);
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    const restarted = postmasterPid(dataDir);
    expect(restarted).not.toBe(killed);
    expect(alive(restarted)).toBe(true);

    // One error line for the outage, none before it.
    if (process.env.MAILROOM_TEST_OUTPUT) (await import("node:fs")).writeFileSync(process.env.MAILROOM_TEST_OUTPUT, output);
    const lines = output.split("\n").filter((l) => l.startsWith("{"));
    const errors = lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 50);
    expect(errors.filter((l) => l.msg.includes("embedded PostgreSQL exited unexpectedly"))).toHaveLength(1);
    expect(outputBefore).not.toContain('"level":50');

    // The pool and the workers reconnected: a message accepted now is delivered.
    await delivered(await send("after"));

    // A stop stops the restarted server too: no postmaster is left behind.
    await app.kill("SIGTERM");
    expect(await app.exited).toBe(0);
    expect(alive(restarted)).toBe(false);
  }, 180_000);
});
