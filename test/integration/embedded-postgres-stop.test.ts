import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, startAppProcess, waitFor, type Proc } from "../support/processes";
import { alive, postmasterPid, stopLeftPostmaster } from "../support/postmaster-pid";

/**
 * The embedded PostgreSQL runs in its own process group and is stopped last
 * (lib/storage/postmaster.ts, docs/adr/0202): a terminal's Ctrl-C (SIGINT to
 * the whole foreground group) stops `npm start` without a database error;
 * a postmaster left behind by an app killed with SIGKILL is stopped by the
 * next start, which starts its own.
 */
const root = path.resolve(import.meta.dirname, "../..");

/** Every process below `pid`, with its command line. */
function descendants(pid: number): { pid: number; args: string }[] {
  const rows = spawnSync("ps", ["-e", "-o", "pid=,ppid=,args="], { encoding: "utf8" })
    .stdout.split("\n")
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const out: { pid: number; args: string }[] = [];
  const walk = (p: number) => {
    for (const r of rows.filter((row) => row.ppid === p)) {
      out.push({ pid: r.pid, args: r.args });
      walk(r.pid);
    }
  };
  walk(pid);
  return out;
}

describe("stopping the embedded PostgreSQL", () => {
  const dirs: string[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
    for (const d of dirs) stopLeftPostmaster(d);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("Ctrl-C in a terminal (SIGINT to the process group) stops the app, its workers, then PostgreSQL, with no database error", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-ctrl-c-"));
    dirs.push(dataDir);
    const port = await freePort();
    // Its own process group, as a shell gives a foreground job: SIGINT to -pid is the terminal's Ctrl-C.
    const child = spawn(path.join(root, "node_modules/.bin/tsx"), ["scripts/start.ts"], {
      cwd: root,
      detached: true,
      env: {
        ...process.env,
        DATABASE_URL: "",
        MAILROOM_DATA_DIR: dataDir,
        MAILROOM_EMBEDDED_PG_PORT: "0",
        PORT: String(port),
        MAILROOM_DASHBOARD: "off",
        MAILROOM_INBOUND_PORT: "0",
        MAILROOM_SUBMISSION_PORT: "0",
        MAILROOM_SUBMISSION_TLS_PORT: "0",
        MAILROOM_WORKERS: "process",
        MAILROOM_QUIET_START: "false",
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    cleanups.push(async () => {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
    });
    await waitFor("the first-start banner", async () => {
      if (child.exitCode !== null) throw new Error(output);
      return output.includes("-d '");
    }, 90_000);
    const apiKey = /Authorization: Bearer (\S+)'/.exec(output)![1]!;
    const pm = postmasterPid(dataDir);

    // Mail in flight: accepted, and being delivered by the workers (sandbox MX) when the Ctrl-C comes.
    const body = (i: number) => JSON.stringify({ From: { email: "hello@example.com" }, To: [{ email: `r${i}@example.org` }], Subject: `ctrl-c ${i}`, ContentType: "Text", PlainContent: "hi" });
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/email`, { method: "POST", headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" }, body: body(i) });
      expect(res.status).toBe(200);
    }
    const app = descendants(child.pid!);
    const workers = app.filter((p) => p.args.includes("mailroom.mjs") && p.args.includes("worker")).map((p) => p.pid);
    expect(workers.length).toBeGreaterThan(0);
    expect(app.some((p) => p.pid === pm)).toBe(true); // the app's own child, in its own group

    process.kill(-child.pid!, "SIGINT");
    // The workers stop first; PostgreSQL still runs when they are gone.
    let postgresWhenWorkersGone: boolean | undefined;
    while (child.exitCode === null && postgresWhenWorkersGone === undefined) {
      if (!workers.some(alive)) postgresWhenWorkersGone = alive(pm);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await exited).toBe(0);
    expect(postgresWhenWorkersGone).toBe(true);
    await waitFor("the postmaster to be gone", async () => !alive(pm), 5000);

    const lines = output.split("\n");
    const errors = lines.filter((l) => l.startsWith("{") && (JSON.parse(l) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
    expect(output).not.toContain("57P01");
    expect(output).not.toMatch(/terminating connection|could not store/);
    expect(output).toContain("SIGINT: stopping");
  }, 180_000);

  it("a postmaster left running by an app killed with SIGKILL is stopped by the next start, which runs its own", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-orphan-"));
    dirs.push(dataDir);
    const env = { DATABASE_URL: "", MAILROOM_DATA_DIR: dataDir, MAILROOM_EMBEDDED_PG_PORT: "0" };
    let app: Proc & { url: string } = await startAppProcess(env);
    cleanups.push(() => app.kill("SIGTERM"));
    const first = postmasterPid(dataDir);
    await app.kill("SIGKILL");
    // Its own process group: the SIGKILL of the app does not take it along.
    expect(alive(first)).toBe(true);

    app = await startAppProcess(env);
    expect(alive(first)).toBe(false);
    const second = postmasterPid(dataDir);
    expect(second).not.toBe(first);
    expect(descendants(app.child.pid!).some((p) => p.pid === second)).toBe(true); // this app's, supervised by it
    expect((await fetch(`${app.url}/readyz`)).status).toBe(200);

    await app.kill("SIGTERM");
    expect(await app.exited).toBe(0);
    expect(alive(second)).toBe(false);
  }, 180_000);
});
