import { readFileSync } from "node:fs";
import path from "node:path";

/** The pid of the embedded postmaster of an app's data directory (its postmaster.pid's first line). */
export function postmasterPid(dataDir: string): number {
  return Number(readFileSync(path.join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
}

/** Whether a process exists (EPERM: it does, owned by another user, as a postmaster run for root is). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
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
