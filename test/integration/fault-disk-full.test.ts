import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { errorEnvelopeSchema } from "../../lib/contract/errors";
import { createAccount } from "../../lib/domain/accounts/accounts";
import { openDatabase } from "../../lib/storage/database";
import { startEmbeddedPostgres } from "../../lib/storage/embedded";
import { clusterDirOf } from "../../lib/storage/postgres-as-root";
import { bearer } from "../support/fixtures";
import { startAppProcess, waitFor, type Proc } from "../support/processes";

/**
 * A full disk under the embedded PostgreSQL (docs/adr/0007): the data
 * directory on a small tmpfs, filled until PostgreSQL's writes fail, then
 * freed. Meanwhile the API answers 503 with Retry-After (code 507 when the
 * disk is named), never 500; once space is freed PostgreSQL is back by
 * itself (the app supervises and restarts the server it started: a full
 * disk can make it exit) and everything accepted is delivered.
 * MAILROOM_DISK_MIN_FREE is 0 here, so that PostgreSQL itself meets the
 * full disk (the reserve is tested in fault-disk-threshold.test.ts).
 * Needs mount (root, as in CI); skipped with a message elsewhere.
 */
function tryMountTmpfs(options: string): { dir?: string; why?: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mailroom-full-"));
  const run = spawnSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", dir], { encoding: "utf8" });
  if (run.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { why: `mount -t tmpfs failed (${(run.stderr || run.error?.message || "").trim()}): this test needs root` };
  }
  return { dir };
}

describe("a full disk under the embedded PostgreSQL", () => {
  let mount: string | undefined;
  let app: (Proc & { url: string }) | undefined;
  afterAll(async () => {
    await app?.kill();
    if (mount) {
      spawnSync("umount", ["-l", mount]);
      rmSync(mount, { recursive: true, force: true });
    }
  });

  it("answers only 503s with Retry-After while it is full, comes back by itself once space is freed, and delivers everything accepted", async (t) => {
    const mounted = tryMountTmpfs("size=256m,mode=0755");
    if (!mounted.dir) {
      console.warn(`skipped: ${mounted.why}`);
      t.skip();
      return;
    }
    mount = mounted.dir;
    const dataDir = path.join(mount, "data");
    mkdirSync(dataDir);
    app = await startAppProcess({
      DATABASE_URL: "",
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_EMBEDDED_PG_PORT: "0",
      MAILROOM_WORKERS: "inline",
      MAILROOM_SANDBOX_PORT: "0",
      MAILROOM_DISK_MIN_FREE: "0",
      MAILROOM_DISK_WARN_FREE: "0",
    });
    const url = app.url;
    // /readyz answers once HTTP listens; the start goes on (workers, maintenance schedules) and a disk filled
    // before it ends fails the start itself. This test is about a running instance: wait for the start to end.
    await waitFor("the start to end", async () => app!.output().includes("Mailroom is running"), 60_000);
    if (!clusterDirOf(dataDir).startsWith(mount)) {
      console.warn(`skipped: the cluster lives in ${clusterDirOf(dataDir)}, not on the small file system (root placement)`);
      t.skip();
      return;
    }
    // The app's own server: join it to make an account.
    const joined = await startEmbeddedPostgres({ dataDir, port: 0 });
    const database = openDatabase(joined.url, { max: 1 });
    const { apiKey } = await createAccount(database, { name: "Full", plan: "unlimited", domain: "example.com", verified: true });
    const headers = bearer(apiKey);
    // Bodies of 32 KB: the heap and the WAL grow with every message.
    const body = JSON.stringify({ From: { email: "a@example.com" }, To: [{ email: "b@example.org" }], Subject: "full", ContentType: "Text", PlainContent: "x".repeat(32 * 1024) });

    const accepted: string[] = [];
    const outcomes: { status: number; phase: string; retryAfter: string | null; code?: number }[] = [];
    let phase = "before";
    let running = true;
    let healthzDown = false;
    const load = (async () => {
      while (running) {
        const p = phase;
        try {
          const res = await fetch(`${url}/api/v1/email`, { method: "POST", headers, body, signal: AbortSignal.timeout(20_000) });
          const json = (await res.json()) as { MessageID?: string };
          if (res.status === 200) accepted.push(json.MessageID!);
          else expect(errorEnvelopeSchema.safeParse(json).success).toBe(true);
          const code = (json as { Errors?: { Code: number }[] }).Errors?.[0]?.Code;
          outcomes.push({ status: res.status, phase: p, retryAfter: res.headers.get("retry-after"), code });
          if ((await fetch(`${url}/healthz`)).status === 503) healthzDown = true;
        } catch (err) {
          outcomes.push({ status: 0, phase: `${p}: ${(err as Error).message}`, retryAfter: null });
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    await waitFor("traffic before the disk fills", async () => accepted.length >= 5, 30_000);
    // Fill the file system: dd stops at ENOSPC.
    phase = "full";
    spawnSync("dd", ["if=/dev/zero", `of=${path.join(mount, "filler")}`, "bs=1M"], { stdio: "ignore" });
    const fullSince = outcomes.length;
    await waitFor("writes refused for a full disk", async () => outcomes.slice(fullSince).filter((o) => o.status === 503).length >= 10, 60_000);
    // The case of the field report: a WAL write that fails. WAL only (a logical message, no
    // table grows) and a switch to a new segment, until a new segment file cannot be
    // created: PostgreSQL PANICs (this backend, or the WAL writer and this one is
    // terminated with the others) and the postmaster exits.
    let walError: string | undefined;
    for (let i = 0; i < 64 && !walError; i++) {
      walError = await database.pool
        .query("SELECT pg_logical_emit_message(false, 'mailroom-test', repeat('x', 1048576)), pg_switch_wal()")
        .then(() => undefined, (err: Error) => err.message);
    }
    await database.close().catch(() => {});
    expect(walError).toMatch(/No space left on device|crash of another server process|server closed the connection|Connection terminated/);
    // The postmaster exits; /healthz says so while the app restarts it (lib/storage/postmaster.ts, docs/adr/0202).
    await waitFor("the postmaster gone (/healthz 503)", async () => healthzDown, 20_000);
    await new Promise((r) => setTimeout(r, 2000));
    phase = "freed";
    rmSync(path.join(mount, "filler"));
    const freedAt = outcomes.length;
    // Back by itself: the app restarts a server that exited; nobody runs pg_ctl.
    await waitFor("/readyz 200 after space was freed", async () => (await fetch(`${url}/readyz`)).status === 200, 90_000, 250);
    await waitFor("messages accepted again", async () => outcomes.slice(freedAt).filter((o) => o.status === 200).length >= 5, 60_000);
    running = false;
    await load;

    const during = outcomes.filter((o) => o.phase === "full");
    expect(during.filter((o) => o.status === 503).length).toBeGreaterThanOrEqual(10);
    // Never a 500, never a dropped connection: a 200 or a 503 with Retry-After.
    expect(outcomes.filter((o) => o.status !== 200 && o.status !== 503)).toEqual([]);
    expect(outcomes.filter((o) => o.status === 503 && !o.retryAfter)).toEqual([]);
    // The disk is named while PostgreSQL still answers (code 507); once it has exited, the outage is "unavailable" (503).
    expect(during.some((o) => o.code === 507)).toBe(true);

    // Everything accepted, before, during and after, is delivered.
    for (const id of accepted) {
      await waitFor(`delivery of ${id}`, async () => {
        const r = await fetch(`${url}/api/v1/events?MessageID=${id}&Event=delivered`, { headers });
        return r.ok && ((await r.json()) as { TotalRecords: number }).TotalRecords === 1;
      }, 60_000, 250);
    }
    execFileSync("sync");
  }, 300_000);
});
