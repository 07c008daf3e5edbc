import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { freePort } from "../../lib/storage/embedded";

export { freePort };

/**
 * Real Mailroom processes for scale-out and fault tests: app processes
 * (`scripts/start.ts`, API only) and `mailroom worker` processes, started
 * as children with their own environment.
 */

const root = path.resolve(import.meta.dirname, "../..");

export interface Proc {
  child: ChildProcess;
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}


function launch(args: string[], env: Record<string, string>): Proc {
  const child = spawn(args[0]!, args.slice(1), {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "warn", MAILROOM_QUIET_START: "true", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr!.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    async kill(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`Timed out waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ""}`);
}

/**
 * An API-only app process (no dashboard, no inline workers unless asked). Without PORT in `env` it
 * takes a free port; another process can take that port before the app listens on it, so an app
 * that exits saying its port is in use is started again on another one.
 */
export async function startAppProcess(env: Record<string, string>): Promise<Proc & { url: string }> {
  for (let attempt = 1; ; attempt++) {
    const port = env.PORT ? Number(env.PORT) : await freePort();
    // `node --import tsx` rather than the tsx CLI: one process, so its pid is the server's.
    // BENCH_APP_PROFILE=<dir>: a V8 CPU profile of the app process, written when it exits (benchmarks).
    const profile = process.env.BENCH_APP_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_APP_PROFILE}`] : [];
    const proc = launch([process.execPath, ...profile, "--import", "tsx", "scripts/start.ts"], {
      MAILROOM_DASHBOARD: "off",
      MAILROOM_WORKERS: "off",
      MAILROOM_INBOUND_PORT: "0",
      MAILROOM_SUBMISSION_PORT: "0",
      MAILROOM_SUBMISSION_TLS_PORT: "0",
      ...env,
      PORT: String(port),
    });
    const url = `http://127.0.0.1:${port}`;
    // Both forms of the message: the probe's "host:port (what; VARIABLE) is already in use", and the listen's "host:port is already in use".
    const portTaken = () =>
      proc.child.exitCode !== null && proc.output().includes("is already in use") && new RegExp(`:${port}[ (]`).test(proc.output());
    try {
      await waitFor(`app on ${url}`, async () => {
        if (portTaken()) return true;
        if (proc.child.exitCode !== null) throw new Error(`app exited: ${proc.output()}`);
        // Bounded: a port taken by a program that never answers must not hang the wait.
        const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) });
        return res.ok;
      }, 60_000);
    } catch (err) {
      await proc.kill("SIGKILL");
      throw err;
    }
    if (!portTaken()) return { ...proc, url };
    if (env.PORT || attempt === 3) throw new Error(`app exited: ${proc.output()}`);
  }
}

/** A `mailroom worker` process. */
export function startWorkerProcess(env: Record<string, string>): Proc {
  return launch([process.execPath, "bin/mailroom.mjs", "worker"], env);
}
