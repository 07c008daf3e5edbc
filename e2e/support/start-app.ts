import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { NODE_HEAP_FLAGS } from "../../lib/node-heap-flags";
import { freePort } from "../../lib/storage/embedded";

export { freePort };

/**
 * Starts the app as `npm start` does (`tsx` with the heap flags, scripts/start.ts, which builds
 * the dashboard when .next/BUILD_ID is missing) and reads the first-start
 * report (API key, admin credentials) from its stdout.
 */

export interface StartedApp {
  child: ChildProcess;
  url: string;
  apiKey?: string;
  adminEmail?: string;
  adminPassword?: string;
  output: () => string;
}

export async function startApp(env: Record<string, string>, options: { timeoutMs?: number } = {}): Promise<StartedApp> {
  if (!existsSync("node_modules/.bin/tsx")) throw new Error("run `npm install` first");
  const child = spawn("node_modules/.bin/tsx", [...NODE_HEAP_FLAGS, "scripts/start.ts"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: false,
  });
  let out = "";
  child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (out += b.toString()));
  const deadline = Date.now() + (options.timeoutMs ?? 240_000);
  let runningSince = 0;
  for (;;) {
    const running = /Mailroom is running at \S+ \(listening on (\S+)\)/.exec(out);
    if (running && !runningSince) runningSince = Date.now();
    // The first-start block follows the "running" line (absent on a database that was installed before).
    if (running && (/Send a message:/.test(out) || Date.now() - runningSince > 2000)) {
      return {
        child,
        url: running[1]!,
        apiKey: /API key \(shown once\):\s+(\S+)/.exec(out)?.[1],
        adminEmail: /Dashboard admin:\s+(\S+) \/ (\S+)/.exec(out)?.[1],
        adminPassword: /Dashboard admin:\s+(\S+) \/ (\S+)/.exec(out)?.[2],
        output: () => out,
      };
    }
    if (child.exitCode !== null) throw new Error(`the app exited (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) {
      child.kill("SIGTERM");
      throw new Error(`the app did not start in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
