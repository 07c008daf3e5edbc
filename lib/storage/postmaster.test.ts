import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { restartDelayMs, startPostmaster } from "./postmaster";

describe("restartDelayMs", () => {
  it("starts at 1 s and doubles to 30 s", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50].map((a) => restartDelayMs(a))).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });

  it("never returns less than the first delay nor more than the cap, whatever the attempt", () => {
    for (const attempt of [-1, Number.NaN, Number.POSITIVE_INFINITY, 1e9]) {
      const delay = restartDelayMs(attempt);
      expect(delay).toBeGreaterThanOrEqual(1000);
      expect(delay).toBeLessThanOrEqual(30_000);
    }
    expect(restartDelayMs(3, 50, 300)).toBe(300);
  });
});

/**
 * Supervision with a stand-in `postgres` (a real process: a shell script that
 * prints PostgreSQL's ready line, or fails while a file says so).
 */
function fakePostgres(): { binary: string; dir: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mailroom-fake-postgres-"));
  const binary = path.join(dir, "postgres");
  writeFileSync(
    binary,
    `#!/bin/sh
if [ -f "${dir}/fail" ]; then echo "FATAL:  could not write lock file: No space left on device" >&2; exit 1; fi
echo "LOG:  database system is ready to accept connections" >&2
trap 'exit 0' INT
while :; do sleep 0.05; done
`,
  );
  chmodSync(binary, 0o755);
  return { binary, dir };
}

function capturingLog() {
  const lines: { level: number; msg: string }[] = [];
  const log = pino({ level: "info" }, { write: (s: string) => void lines.push(JSON.parse(s) as { level: number; msg: string }) });
  return { log, lines };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const until = async (what: string, ok: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe("startPostmaster", () => {
  it("runs the server in its own process group, restarts it after an unexpected exit, and logs the exit once at error level", async () => {
    const { binary, dir } = fakePostgres();
    const { log, lines } = capturingLog();
    const started: number[] = [];
    const pm = await startPostmaster({ binary, args: [], env: process.env, onOutput: () => {} }, { log, backoff: { initialMs: 50, maxMs: 200 }, onStarted: async (pid) => void started.push(pid) });
    const first = pm.pid()!;
    expect(started).toEqual([first]);
    // Its own process group: the group's id is its own pid, not ours.
    const pgid = Number((await import("node:fs")).readFileSync(`/proc/${first}/stat`, "utf8").split(") ")[1]!.split(" ")[2]);
    expect(pgid).toBe(first);

    // Failing restarts first (a full disk), then a working one.
    writeFileSync(path.join(dir, "fail"), "");
    process.kill(first, "SIGKILL");
    await until("down", () => !pm.isUp());
    await until("two failed attempts", () => lines.filter((l) => l.level === 40).length >= 2);
    (await import("node:fs")).rmSync(path.join(dir, "fail"));
    await until("restarted", () => pm.isUp());
    const second = pm.pid()!;
    expect(second).not.toBe(first);
    expect(started).toEqual([first, second]);
    expect(lines.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual(["embedded PostgreSQL exited unexpectedly; restarting it"]);
    expect(lines.filter((l) => l.level === 40).every((l) => l.msg === "embedded PostgreSQL did not restart; trying again")).toBe(true);
    expect(JSON.stringify(lines)).toContain("No space left on device");

    // A stop is not an exit to restart from.
    await pm.stop();
    expect(alive(second)).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect(pm.pid()).toBeUndefined();
    expect(pm.isUp()).toBe(false);
    expect(lines.filter((l) => l.level >= 50)).toHaveLength(1);
  });

  it("a stop while a restart waits cancels it: nothing is left running", async () => {
    const { binary } = fakePostgres();
    const { log } = capturingLog();
    const pm = await startPostmaster({ binary, args: [], env: process.env, onOutput: () => {} }, { log, backoff: { initialMs: 200, maxMs: 200 } });
    process.kill(pm.pid()!, "SIGKILL");
    await until("down", () => !pm.isUp());
    await pm.stop();
    await new Promise((r) => setTimeout(r, 400));
    expect(pm.pid()).toBeUndefined();
  });

  it("rejects with the server's last line when it exits before it is ready", async () => {
    const { binary, dir } = fakePostgres();
    writeFileSync(path.join(dir, "fail"), "");
    await expect(startPostmaster({ binary, args: [], env: process.env, onOutput: () => {} })).rejects.toThrow("postgres exited with 1: FATAL:  could not write lock file: No space left on device");
  });
});
