import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { createAccount } from "../../lib/domain/accounts/accounts";
import { NODE_HEAP_FLAGS } from "../../lib/node-heap-flags";
import { openDatabase } from "../../lib/storage/database";
import { clusterDirOf } from "../../lib/storage/postgres-as-root";
import { freePort, waitFor } from "./processes";
import { isAlive, processGroup, processTree, pssKb, rssKb, stillThere, type ProcStat } from "./proc-stats";

/**
 * The default topology as `npm start` runs it, for bench:e2e and the crash
 * tests: `node --import tsx scripts/start.ts` with the embedded PostgreSQL in
 * a data directory of the caller's (kept across restarts), delivery relayed
 * to the caller's SMTP peer. The app runs in its own process group, so
 * kill() SIGKILLs the whole tree at once (app, worker children, postmaster
 * and backends) as a power cut or the OOM killer of a cgroup would.
 *
 * MAILROOM_WORKERS is left to the default (or the caller's environment)
 * unless `workers` is given: the default topology is what is measured.
 */

const root = path.resolve(import.meta.dirname, "../..");

export type Role = "app" | "workers" | "postgres" | "other";

export interface TopologyOptions {
  /** Kept across restart(); the caller creates and removes it. */
  dataDir: string;
  /** smtp://host:port of the peer that receives every delivery. */
  relayUrl: string;
  /** MAILROOM_WORKERS, only when given. */
  workers?: string;
  /** Serve the dashboard too; honoured only when a build (.next/BUILD_ID) exists, else start.ts would build one. */
  dashboard?: boolean;
  /** Node flags of the app process (e.g. --cpu-prof). */
  execArgv?: string[];
  /** More environment for the app (wins over the defaults above). */
  env?: Record<string, string>;
  readyTimeoutMs?: number;
}

export interface RoleProcess extends ProcStat {
  role: Role;
}

export interface Topology {
  /** Base URL of the HTTP server (the same port across restarts). */
  url: string;
  dataDir: string;
  dashboard: boolean;
  /** The current app process. */
  pid(): number;
  /** The app's last 20 kB of stdout and stderr. */
  output(): string;
  /** URL of the embedded server now running on the data directory (its port changes at each start). */
  databaseUrl(): string;
  /** The app and its descendants, by role: app (the pid started), postgres (comm "postgres"), workers (other node processes), other. */
  processes(): RoleProcess[];
  /** SIGKILL to the whole process group; resolves when no process of it is left. */
  kill(): Promise<void>;
  /** Starts the app again on the same data directory and port; resolves when /readyz answers 200. */
  restart(): Promise<void>;
  /** SIGTERM (the ordered shutdown), SIGKILL of what is left after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

// Groups still running when this process exits (a failed test, a crashed bench) are killed with it.
const liveGroups = new Set<number>();
process.on("exit", () => {
  for (const pgrp of liveGroups) {
    try {
      process.kill(-pgrp, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

function classify(s: ProcStat, appPid: number): Role {
  if (s.pid === appPid) return "app";
  if (s.comm === "postgres") return "postgres";
  // A worker may rename itself (process.title): recognise node by its executable.
  return executableOf(s.pid) === process.execPath ? "workers" : "other";
}

function executableOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return undefined;
  }
}

export async function startTopology(options: TopologyOptions): Promise<Topology> {
  const port = await freePort();
  const dashboard = Boolean(options.dashboard) && existsSync(path.join(root, ".next", "BUILD_ID"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production", // as `npm start` (vitest sets "test")
    DATABASE_URL: "", // empty means unset: the embedded server
    MAILROOM_DATA_DIR: options.dataDir,
    // A fresh data directory takes any free port; a restart picks a free one again
    // (the port is not stored: a running postmaster is found by its postmaster.pid).
    MAILROOM_EMBEDDED_PG_PORT: "0",
    PORT: String(port),
    MAILROOM_DELIVERY: "relay",
    SMTP_RELAY_URL: options.relayUrl,
    MAILROOM_DASHBOARD: dashboard ? "on" : "off",
    MAILROOM_INBOUND_PORT: "0",
    MAILROOM_SUBMISSION_PORT: "0",
    MAILROOM_SUBMISSION_TLS_PORT: "0",
    MAILROOM_QUIET_START: "true",
    LOG_LEVEL: "warn",
    ...(options.workers !== undefined && { MAILROOM_WORKERS: options.workers }),
    ...options.env,
  };
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess;
  let out = "";

  const launch = async () => {
    if (out) out += "\n--- restart ---\n";
    // `node --import tsx`, not the tsx CLI: one process, so the pid is the app's and its group's. The heap flags of `npm start` (docs/adr/0047).
    child = spawn(process.execPath, [...NODE_HEAP_FLAGS, ...(options.execArgv ?? []), "--import", "tsx", "scripts/start.ts"], {
      cwd: root,
      env,
      detached: true, // its own process group
      stdio: ["ignore", "pipe", "pipe"],
    });
    const pid = child.pid!;
    liveGroups.add(pid);
    child.once("exit", () => {
      if (processGroup(pid).length === 0) liveGroups.delete(pid);
    });
    const keep = (d: Buffer) => (out = (out + d.toString()).slice(-20_000));
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
    for (;;) {
      // An app that exits fails the start at once, with its output.
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the app exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${out}`);
      if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) return;
      if (Date.now() > deadline) throw new Error(`the app on ${url} was not ready after ${options.readyTimeoutMs ?? 120_000} ms:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const exited = (c: ChildProcess) =>
    c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => c.once("exit", () => r()));

  const killGroup = async () => {
    const pgrp = child.pid!;
    // Descendants too, one by one: a child that made its own process group would escape the group kill.
    const tree = processTree(pgrp);
    for (const target of [-pgrp, ...tree.map((s) => s.pid)]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await exited(child);
    // The postmaster is reparented to init and reaped by it a moment later: until then its
    // zombie answers kill(pid, 0), and a start would take it for a running server and fail.
    await waitFor(
      `process group ${pgrp} to end`,
      async () => processGroup(pgrp).length === 0 && !tree.some(stillThere),
      30_000,
      50,
    );
    liveGroups.delete(pgrp);
  };

  await launch();
  return {
    url,
    dataDir: options.dataDir,
    dashboard,
    pid: () => child.pid!,
    output: () => out,
    databaseUrl: () => embeddedDatabaseUrl(options.dataDir),
    processes: () => processTree(child.pid!).map((s) => ({ ...s, role: classify(s, child.pid!) })),
    kill: killGroup,
    restart: async () => {
      if (child.exitCode === null && child.signalCode === null) throw new Error("restart(): the app is still running; kill() or stop() it first");
      await launch();
    },
    stop: async (graceMs = 30_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => void killGroup(), graceMs);
      await exited(child);
      clearTimeout(timer);
      // The app stops its PostgreSQL itself; whatever is left of the group goes now.
      await killGroup();
    },
  };
}

/** The URL of the embedded server running on `dataDir`, read from its postmaster.pid and credentials file. */
export function embeddedDatabaseUrl(dataDir: string): string {
  const pidFile = path.join(clusterDirOf(dataDir), "postmaster.pid");
  const lines = readFileSync(pidFile, "utf8").split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port || !isAlive(pid)) throw new Error(`no PostgreSQL running on ${dataDir} (${pidFile} is stale)`);
  const creds = JSON.parse(readFileSync(path.join(dataDir, "postgres-credentials.json"), "utf8")) as { user: string; password: string };
  return `postgres://${creds.user}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}/mailroom`;
}

/** An account on plan `unlimited` with a verified sender domain, made directly in the database. */
export async function createUnlimitedAccount(databaseUrl: string, name: string, domain: string): Promise<{ accountId: string; apiKey: string }> {
  const database = openDatabase(databaseUrl, { max: 1 });
  try {
    const created = await createAccount(database, { name, plan: "unlimited", domain, verified: true });
    return { accountId: created.accountId, apiKey: created.apiKey };
  } finally {
    await database.close();
  }
}

/** Sums of the processes' figures by role. */
export function byRole<T extends RoleProcess>(procs: T[], value: (p: T) => number): Record<Role, number> {
  const sums: Record<Role, number> = { app: 0, workers: 0, postgres: 0, other: 0 };
  for (const p of procs) sums[p.role] += value(p);
  return sums;
}

/** CPU ms used so far by role; a postmaster's counts include its exited backends (cutime). */
export function cpuByRole(procs: RoleProcess[]): Record<Role, number> {
  return byRole(procs, (p) => p.cpuMs + (p.role === "app" ? 0 : p.childrenCpuMs));
}

/** Page faults so far by role; a postmaster's include its exited backends' (cminflt + cmajflt). */
export function faultsByRole(procs: RoleProcess[]): Record<Role, number> {
  return byRole(procs, (p) => p.faults + (p.role === "app" ? 0 : p.childrenFaults));
}

export { rssKb, pssKb };
