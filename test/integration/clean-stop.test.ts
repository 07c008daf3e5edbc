import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { clusterDirOf } from "../../lib/storage/postgres-as-root";
import { isAlive, processGroup, processTree, stillThere, type ProcStat } from "../support/proc-stats";
import { freePort, waitFor } from "../support/processes";

/**
 * The clean stop (docs/adr/0052): the real `npm start` tree (npm, the app,
 * its worker processes, the embedded PostgreSQL in a process group of its
 * own) ends on one SIGTERM, to npm alone (what `docker stop` and most
 * process managers send) or to the whole process group, within the bound,
 * and frees its ports; a second start on the same data directory works.
 */

const root = path.resolve(import.meta.dirname, "../..");
/** The app's bound (scripts/start.ts) and a margin for a loaded machine. */
const STOP_WITHIN_MS = 65_000;

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "0.0.0.0", () => srv.close(() => resolve(true)));
  });
}

function postmasterPid(dataDir: string): number | undefined {
  try {
    return Number(readFileSync(path.join(clusterDirOf(dataDir), "postmaster.pid"), "utf8").split("\n")[0]) || undefined;
  } catch {
    return undefined;
  }
}

describe("a clean stop of npm start", { timeout: 400_000 }, () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-clean-stop-"));
  const started: ChildProcess[] = [];
  let ports: Record<string, number>;

  afterAll(() => {
    for (const c of started) {
      for (const target of [-c.pid!, ...processTree(c.pid!).map((s) => s.pid)]) {
        try {
          process.kill(target, "SIGKILL");
        } catch {
          // gone
        }
      }
    }
    const pm = postmasterPid(dataDir);
    if (pm && isAlive(pm)) process.kill(pm, "SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function npmStart(): Promise<{ npm: ChildProcess; tree: ProcStat[]; postmaster: number; output: () => string }> {
    ports ??= {
      PORT: await freePort(),
      MAILROOM_SUBMISSION_PORT: await freePort(),
      MAILROOM_SUBMISSION_TLS_PORT: await freePort(),
      MAILROOM_INBOUND_PORT: await freePort(),
      MAILROOM_SANDBOX_PORT: await freePort(),
    };
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: "",
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_EMBEDDED_PG_PORT: "0",
      MAILROOM_DASHBOARD: "off",
      MAILROOM_QUIET_START: "true",
      LOG_LEVEL: "warn",
      MAILROOM_WORKERS: "process",
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
    };
    let out = "";
    const npm = spawn("npm", ["start"], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    started.push(npm);
    npm.stdout!.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
    npm.stderr!.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
    // Up: the start is over (its workers ready) and /readyz answers.
    await waitFor(
      `npm start to be running:\n${out}`,
      async () => {
        if (npm.exitCode !== null) throw new Error(`npm start exited ${npm.exitCode}:\n${out}`);
        return /Mailroom is running at/.test(out) && (await fetch(`http://127.0.0.1:${ports.PORT}/readyz`).then((r) => r.ok, () => false));
      },
      180_000,
      200,
    );
    const postmaster = postmasterPid(dataDir)!;
    expect(isAlive(postmaster)).toBe(true);
    const tree = processTree(npm.pid!);
    // npm, the app and its workers (at least two node processes under npm).
    expect(tree.length).toBeGreaterThanOrEqual(3);
    return { npm, tree, postmaster, output: () => out };
  }

  async function expectAllGone(app: Awaited<ReturnType<typeof npmStart>>): Promise<void> {
    const since = Date.now();
    await waitFor(
      "every process of the tree to end and its ports to be free",
      async () => {
        if (app.tree.some((s) => stillThere(s) && isAlive(s.pid))) return false;
        if (processGroup(app.npm.pid!).some((s) => s.state !== "Z")) return false;
        if (isAlive(app.postmaster)) return false;
        for (const port of Object.values(ports)) if (!(await portFree(port))) return false;
        return true;
      },
      STOP_WITHIN_MS,
      200,
    ).catch((err: Error) => {
      const left = [...app.tree.filter((s) => isAlive(s.pid) && stillThere(s)).map((s) => `${s.pid} ${s.comm}`), ...(isAlive(app.postmaster) ? [`postmaster ${app.postmaster}`] : [])];
      throw new Error(`${err.message}; still running: ${left.join(", ")}\n${app.output()}`);
    });
    expect(Date.now() - since).toBeLessThan(STOP_WITHIN_MS);
  }

  it("SIGTERM to npm alone stops the app, its workers and PostgreSQL, and frees the ports", async () => {
    const app = await npmStart();
    process.kill(app.npm.pid!, "SIGTERM");
    await expectAllGone(app);
    expect(app.output()).toMatch(/SIGTERM: stopping/);
  });

  it("a second start on the same data directory works, and SIGTERM to the whole group stops it too", async () => {
    const app = await npmStart();
    process.kill(-app.npm.pid!, "SIGTERM");
    await expectAllGone(app);
  });
});
