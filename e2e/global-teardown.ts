import { rmSync } from "node:fs";
import type { ChildProcess } from "node:child_process";
import { loadState, STATE_FILE } from "./support/state";

/** Stops the app the global setup started (SIGTERM: it stops its embedded PostgreSQL too) and removes its data. */
export default async function globalTeardown() {
  const app = (globalThis as { __mailroomApp?: { child: ChildProcess } }).__mailroomApp;
  const state = loadState();
  if (app && app.child.exitCode === null) {
    const exited = new Promise<void>((resolve) => app.child.once("exit", () => resolve()));
    app.child.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  }
  if (state.dataDir) rmSync(state.dataDir, { recursive: true, force: true });
  rmSync(STATE_FILE, { force: true });
}
