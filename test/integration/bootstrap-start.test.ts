import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { listAccounts } from "../../lib/domain/accounts/accounts";
import { listApiKeys } from "../../lib/domain/accounts/api-keys";
import { verifyStaffPassword } from "../../lib/domain/staff/staff-users";
import { openDatabase } from "../../lib/storage/database";
import { freePort, waitFor } from "../support/processes";
import { createTestDatabase } from "../support/test-database";

/**
 * The newcomer's first minutes, through the real `npm start` script
 * (scripts/start.ts, API only): the first start prints an API key, the
 * admin's credentials and a curl command; pasting that command sends a
 * message that gets delivered (sandbox). A second start prints no secret,
 * only how to get in until the admin has signed in; credentials a failed
 * first start never printed are issued again (docs/adr/0203).
 */
const root = path.resolve(import.meta.dirname, "../..");

function start(env: Record<string, string>) {
  const child = spawn(path.join(root, "node_modules/.bin/tsx"), ["scripts/start.ts"], {
    cwd: root,
    env: { ...process.env, MAILROOM_DASHBOARD: "off", MAILROOM_INBOUND_PORT: "0", MAILROOM_SUBMISSION_PORT: "0", MAILROOM_SUBMISSION_TLS_PORT: "0", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    stdout: () => stdout,
    exited,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/** The curl command as printed, turned into a fetch. */
function parseCurl(text: string) {
  const url = /curl -X POST (\S+) \\/.exec(text)?.[1];
  const key = /Authorization: Bearer (\S+)'/.exec(text)?.[1];
  const body = /-d '(.*)'$/m.exec(text)?.[1];
  if (!url || !key || !body) throw new Error(`no curl command in:\n${text}`);
  return { url, key, body };
}

describe("first start through npm start", () => {
  const stops: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const s of stops) await s();
  });

  it("prints working credentials and curl command once", async () => {
    const databaseUrl = await createTestDatabase();
    const port = await freePort();
    const env = { DATABASE_URL: databaseUrl, PORT: String(port) };
    const first = start(env);
    stops.push(first.stop);
    await waitFor("the first-start banner", async () => first.stdout().includes("-d '"), 60_000);
    const out = first.stdout();
    expect(out).toContain("created the Demo account");
    const admin = /Dashboard admin: +(\S+) \/ (\S+)/.exec(out);
    expect(admin?.[1]).toBe("admin@example.com");
    expect(admin?.[2]).toMatch(/^[A-Za-z0-9_-]{24}$/);

    const curl = parseCurl(out);
    expect(curl.url).toBe(`http://localhost:${port}/api/v1/email`);
    const res = await fetch(curl.url, {
      method: "POST",
      headers: { Authorization: `Bearer ${curl.key}`, "Content-Type": "application/json" },
      body: curl.body,
    });
    expect(res.status).toBe(200);
    const sent = (await res.json()) as { MessageID: string };
    expect(sent.MessageID).toBeTruthy();

    // The sandbox delivers it: the newcomer sees it in the event log.
    const delivered = await waitFor("the delivered event", async () => {
      const r = await fetch(`http://localhost:${port}/api/v1/events?MessageID=${sent.MessageID}&Event=delivered`, {
        headers: { Authorization: `Bearer ${curl.key}` },
      });
      const body = (await r.json()) as { TotalRecords?: number };
      return (body.TotalRecords ?? 0) > 0 ? body : undefined;
    }, 30_000, 250);
    expect(delivered.TotalRecords).toBe(1);
    expect(await first.stop()).toBe(0);

    const second = start(env);
    stops.push(second.stop);
    await waitFor("the second start", async () => second.stdout().includes("Mailroom is running"), 60_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(second.stdout()).not.toContain(curl.key);
    expect(second.stdout()).not.toContain(admin![2]);
    expect(second.stdout()).not.toMatch(/mr_[A-Za-z0-9_-]{20,}/);
    // The admin has not signed in yet: the start says how to get in.
    expect(second.stdout()).toContain(`The dashboard admin admin@example.com has not signed in yet: sign in at http://localhost:${port}/login`);
    expect(second.stdout()).toContain("`npx mailroom users set-password admin@example.com` prints a new one");
    expect(await second.stop()).toBe(0);

    // Once the admin has signed in, starts say nothing of it.
    const database = openDatabase(databaseUrl, { max: 1 });
    stops.push(() => database.close());
    expect(await verifyStaffPassword(database, admin![1]!, admin![2]!)).not.toBeNull();
    const third = start(env);
    stops.push(third.stop);
    await waitFor("the third start", async () => third.stdout().includes("Mailroom is running"), 60_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(third.stdout()).not.toContain("has not signed in");
    expect(await third.stop()).toBe(0);
  }, 360_000);

  it("a first start that fails after provisioning: the next start prints new credentials, which work, and the unseen key is revoked", async () => {
    const databaseUrl = await createTestDatabase();
    const port = await freePort();
    const env = { DATABASE_URL: databaseUrl, PORT: String(port) };
    // Provisioning succeeds, then the submission server cannot read its certificate: the start fails before printing.
    const failing = start({ ...env, MAILROOM_SUBMISSION_PORT: String(await freePort()), MAILROOM_SUBMISSION_TLS_CERT: "/nonexistent/cert.pem", MAILROOM_SUBMISSION_TLS_KEY: "/nonexistent/key.pem" });
    expect(await failing.exited).toBe(1);
    expect(failing.stdout()).toContain("Mailroom could not start");
    expect(failing.stdout()).not.toMatch(/mr_[A-Za-z0-9_-]{20,}|API key/);
    const database = openDatabase(databaseUrl, { max: 1 });
    stops.push(() => database.close());
    const [demo] = await listAccounts(database);
    expect(demo?.name).toBe("Demo"); // provisioned, never shown

    const next = start(env);
    stops.push(next.stop);
    await waitFor("the credentials", async () => next.stdout().includes("-d '"), 60_000);
    const out = next.stdout();
    expect(out).toContain("stopped before showing its credentials: here are new ones");
    const admin = /Dashboard admin: +(\S+) \/ (\S+)/.exec(out);
    expect(admin?.[1]).toBe("admin@example.com");
    const curl = parseCurl(out);
    const res = await fetch(curl.url, { method: "POST", headers: { Authorization: `Bearer ${curl.key}`, "Content-Type": "application/json" }, body: curl.body });
    expect(res.status).toBe(200);
    // One live Demo key: the one printed (the unseen one is revoked).
    const keys = (await listApiKeys(database, demo!.accountId)).filter((k) => k.label === "demo");
    expect(keys.filter((k) => !k.revokedAt).map((k) => k.prefix)).toEqual([curl.key.slice(0, keys[0]!.prefix.length)]);
    expect(keys).toHaveLength(2);
    expect(await next.stop()).toBe(0);

    // Shown now: the start after prints no secret, only how to get in.
    const after = start(env);
    stops.push(after.stop);
    await waitFor("the start after", async () => after.stdout().includes("has not signed in yet"), 60_000);
    expect(after.stdout()).not.toContain(curl.key);
    expect(after.stdout()).not.toContain(admin![2]);
    expect(after.stdout()).not.toMatch(/mr_[A-Za-z0-9_-]{20,}/);
    expect(await after.stop()).toBe(0);
    // The printed password is the admin's (checked last: it records a sign-in).
    expect(await verifyStaffPassword(database, admin![1]!, admin![2]!)).not.toBeNull();
  }, 360_000);
});
