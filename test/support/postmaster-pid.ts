import { readFileSync } from "node:fs";
import path from "node:path";

/** The pid of the embedded postmaster of an app's data directory (its postmaster.pid's first line). */
export function postmasterPid(dataDir: string): number {
  return Number(readFileSync(path.join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
}

/**
 * Whether a process runs (EPERM: it does, owned by another user, as a
 * postmaster run for root is). A zombie does not: an orphaned postmaster is
 * reparented to PID 1, which on some machines (a VM's init) reaps it late, and
 * until then `kill(pid, 0)` still succeeds.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    // /proc/<pid>/stat: "pid (comm) S ...": the state follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return false; // no /proc (not Linux) or gone already
  }
}

/**
 * After a test: a postmaster still running in its own process group (the app
 * was killed, or the test failed half-way) is stopped, so that it does not
 * outlive the run.
 */
export function stopLeftPostmaster(dataDir: string): void {
  let pid: number;
  try {
    pid = postmasterPid(dataDir);
  } catch {
    return; // no postmaster.pid: stopped cleanly
  }
  if (pid > 0 && alive(pid)) process.kill(pid, "SIGQUIT");
}
