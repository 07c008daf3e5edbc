import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

/**
 * Faults: a data directory that cannot be written is reported at start
 * with a clear message and a non-zero exit, not a stack trace. The file
 * systems are real: small tmpfs mounts, read-only or full (the suite runs
 * as root in CI, which mount needs).
 */
const root = path.resolve(import.meta.dirname, "../..");
const mounts: string[] = [];

function mountTmpfs(options: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mailroom-fs-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", dir]);
  mounts.push(dir);
  return dir;
}

function startWithDataDir(dataDir: string) {
  return spawnSync(path.join(root, "node_modules/.bin/tsx"), ["scripts/start.ts"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: "", MAILROOM_DATA_DIR: dataDir, MAILROOM_DASHBOARD: "off", PORT: "0" },
    encoding: "utf8",
    timeout: 60_000,
  });
}

afterEach(() => {
  for (const dir of mounts.splice(0)) {
    spawnSync("umount", [dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

describe("data directory faults at start", () => {
  it("names a read-only file system and exits non-zero", () => {
    const ro = mountTmpfs("ro,size=1m");
    const run = startWithDataDir(path.join(ro, "data"));
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("Cannot write to the data directory");
    expect(run.stderr).toContain("read-only");
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("names a full disk and exits non-zero", () => {
    const full = mountTmpfs("size=64k");
    // Fill it: the write stops with ENOSPC at the mount's size.
    spawnSync("dd", ["if=/dev/zero", `of=${path.join(full, "filler")}`, "bs=4k", "count=64"]);
    writeFileSync(path.join(full, "probe-parent"), "", { flag: "a" });
    const run = startWithDataDir(full);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("the disk is full");
  });
});
