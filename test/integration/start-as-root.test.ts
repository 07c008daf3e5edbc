import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, waitFor } from "../support/processes";

/**
 * Install and start anywhere (ADR 0005): cloned under a private (0700) directory, as root's home is,
 * `npm start` as root starts. PostgreSQL runs as the user `postgres`, which
 * cannot enter that directory: the server runs from /var/lib/mailroom
 * instead (lib/storage/postgres-as-root.ts). The project is a real copy
 * (node_modules hard-linked) inside a real 0700 directory.
 */
const root = path.resolve(import.meta.dirname, "../..");
const isRoot = process.getuid?.() === 0;
if (!isRoot) console.warn("start-as-root: not run, it needs root (CI runs as root): PostgreSQL's user switch needs it");

const SKIP = new Set(["node_modules", ".git", ".next", ".data", ".test-data", ".test-results", "test-results", "playwright-report"]);

function copyProject(): { parent: string; project: string } {
  const parent = mkdtempSync(path.join(os.tmpdir(), "mailroom-private-"));
  execFileSync("chmod", ["700", parent]);
  const project = path.join(parent, "mailroom");
  execFileSync("mkdir", [project]);
  const entries = readdirSync(root).filter((e) => !SKIP.has(e));
  execFileSync("cp", ["-a", ...entries.map((e) => path.join(root, e)), project]);
  execFileSync("cp", ["-al", path.join(root, "node_modules"), project]);
  return { parent, project };
}

/** `npm start` in `project`, as root or (asUser) as that ordinary user. */
function npmStart(project: string, port: number, asUser?: { uid: number; gid: number }) {
  const { MAILROOM_DATA_DIR: _default, ...inherited } = process.env; // the default: ./.data
  const child = spawn(path.join(project, "node_modules/.bin/tsx"), ["scripts/start.ts"], {
    ...asUser,
    cwd: project,
    env: {
      ...inherited,
      DATABASE_URL: "",
      MAILROOM_DASHBOARD: "off",
      MAILROOM_INBOUND_PORT: "0",
      MAILROOM_SUBMISSION_PORT: "0",
      MAILROOM_SUBMISSION_TLS_PORT: "0",
      MAILROOM_QUIET_START: "false",
      PORT: String(port),
      LOG_LEVEL: "warn",
      ...(asUser && { HOME: project }),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    output: () => out,
    exited,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

describe.runIf(isRoot)("npm start as root under a private directory", () => {
  const cleanups: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("starts, answers /healthz, prints no stack trace, and starts again on the same data", async () => {
    const { parent, project } = copyProject();
    cleanups.push(() => rmSync(parent, { recursive: true, force: true }));
    expect(statSync(parent).mode & 0o777).toBe(0o700);
    const dataDir = path.join(project, ".data");
    cleanups.push(() => {
      const location = path.join(dataDir, "postgres.location");
      if (existsSync(location)) rmSync(readFileSync(location, "utf8").trim(), { recursive: true, force: true });
    });

    for (const round of [1, 2]) {
      const port = await freePort();
      const app = npmStart(project, port);
      cleanups.push(app.stop);
      const health = await waitFor(
        `/healthz (start ${round})`,
        async () => {
          if (app.output().includes("\n    at ")) throw new Error(`stack trace:\n${app.output()}`);
          if (!app.output().includes("Mailroom is running at")) return undefined;
          const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
          return res?.status === 200 ? res : undefined;
        },
        120_000,
        250,
      );
      expect(health.status).toBe(200);
      if (round === 1) expect(app.output()).toContain("First start: created the Demo account");
      else expect(app.output()).not.toContain("First start");
      expect(await app.stop()).toBe(0);
      const out = app.output();
      expect(out).not.toMatch(/\n\s+at /); // no stack trace
      expect(out).not.toMatch(/EACCES|Error:/);
    }

    // The cluster is PostgreSQL's own (owner postgres, 0700) outside the private tree;
    // the binaries and directories above it are root's and writable by root only.
    const pgDir = readFileSync(path.join(dataDir, "postgres.location"), "utf8").trim();
    expect(pgDir.startsWith("/var/lib/mailroom/clusters/")).toBe(true);
    const postgresUid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    expect(statSync(pgDir).uid).toBe(postgresUid);
    expect(statSync(pgDir).mode & 0o777).toBe(0o700);
    for (const dir of ["/var/lib/mailroom", "/var/lib/mailroom/clusters"]) {
      expect(statSync(dir).uid).toBe(0);
      expect(statSync(dir).mode & 0o022).toBe(0);
    }
    const binaries = readdirSync("/var/lib/mailroom").filter((d) => d.startsWith("postgres-"));
    expect(binaries.length).toBeGreaterThan(0);
    for (const d of binaries) expect(statSync(path.join("/var/lib/mailroom", d, "bin", "postgres")).uid).toBe(0);
  }, 300_000);
});

describe.runIf(isRoot)("npm start as an ordinary user", () => {
  const cleanups: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("starts the embedded server as that user, in ./.data, and answers /healthz", async () => {
    const { parent, project } = copyProject();
    cleanups.push(() => rmSync(parent, { recursive: true, force: true }));
    // The user `postgres` stands for any ordinary user here; it owns its checkout.
    const user = {
      uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim()),
      gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim()),
    };
    execFileSync("chmod", ["755", parent]);
    execFileSync("chown", ["postgres:postgres", project]);
    const port = await freePort();
    const app = npmStart(project, port, user);
    cleanups.push(app.stop);
    await waitFor(
      "/healthz (ordinary user)",
      async () => {
        if (!app.output().includes("Mailroom is running at")) return undefined;
        const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
        return res?.status === 200 ? res : undefined;
      },
      120_000,
      250,
    );
    expect(app.output()).toContain("First start: created the Demo account");
    expect(await app.stop()).toBe(0);
    expect(app.output()).not.toMatch(/\n\s+at /);
    expect(existsSync(path.join(project, ".data", "postgres", "PG_VERSION"))).toBe(true);
    expect(existsSync(path.join(project, ".data", "postgres.location"))).toBe(false);
  }, 300_000);
});
