import { spawn, type ChildProcess } from "node:child_process";
import type { Logger } from "../logger";

/**
 * The embedded PostgreSQL server's postmaster, spawned and supervised by the
 * process that started it (docs/adr/0202):
 *  - in its own process group (a detached spawn), so that a terminal's Ctrl-C
 *    (SIGINT to the foreground process group) reaches the app, which stops
 *    its work and then the server, last; never the server first;
 *  - restarted when it exits without being asked (a crash, a full disk, a
 *    kill): logged once at error level, then started again after a backoff
 *    (1 s doubling to 30 s, `restartDelayMs`); crash recovery is
 *    PostgreSQL's own. `isUp()` is what /healthz reports meanwhile.
 * `stop()` asks for a fast shutdown (SIGINT: connections closed, a
 * checkpoint written) and waits for the process to exit.
 */

export interface PostmasterSpec {
  /** The `postgres` binary. */
  binary: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Its own process group (default): a Ctrl-C in the starter's terminal does not reach it. */
  detached?: boolean;
  /** Run as this user (root runs the server as `postgres`). */
  user?: { uid: number; gid: number };
  /** The server's output (stderr and stdout), as it comes. */
  onOutput: (text: string) => void;
}

export interface Postmaster {
  /** The pid of the running postmaster, if one runs. */
  pid(): number | undefined;
  /** False from an unexpected exit until a restarted server accepts connections again. */
  isUp(): boolean;
  /** Fast shutdown; no restart after it. */
  stop(): Promise<void>;
  /** Leaves the server running on its own (the CLI, when others use it): no supervision, no handles kept. */
  release(): void;
}

const READY_TEXT = "database system is ready to accept connections";
const STOP_TIMEOUT_MS = 60_000;

/** The wait before restart attempt `attempt` (0 = the first after an exit): 1 s doubling to 30 s. */
export function restartDelayMs(attempt: number, initialMs = 1000, maxMs = 30_000): number {
  if (!Number.isFinite(attempt) || attempt <= 0) return initialMs;
  return Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
}

/** Spawns one postmaster and resolves once it accepts connections; rejects (with its last line) when it exits first. */
function spawnReady(spec: PostmasterSpec): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(spec.binary, spec.args, {
      // Its own process group: signals to the app's group (a terminal's Ctrl-C) do not reach it.
      detached: spec.detached ?? true,
      env: spec.env,
      stdio: ["ignore", "pipe", "pipe"],
      ...(spec.user && { uid: spec.user.uid, gid: spec.user.gid }),
    });
    let tail = "";
    let ready = false;
    const onData = (d: Buffer) => {
      const text = d.toString();
      spec.onOutput(text);
      if (ready) return;
      tail = (tail + text).slice(-4000);
      if (tail.includes(READY_TEXT)) {
        ready = true;
        tail = "";
        resolve(child);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("error", (err) => {
      if (!ready) reject(err);
    });
    child.once("exit", (code, signal) => {
      if (ready) return;
      const last = tail.trim().split("\n").pop() ?? "";
      reject(new Error(`postgres exited with ${code ?? signal}${last ? `: ${last}` : ""}`));
    });
  });
}

export async function startPostmaster(
  spec: PostmasterSpec,
  options: { log?: Logger; backoff?: { initialMs: number; maxMs: number }; onStarted?: (pid: number) => Promise<void> } = {},
): Promise<Postmaster> {
  const log = options.log;
  const backoff = options.backoff ?? { initialMs: 1000, maxMs: 30_000 };
  let child: ChildProcess | undefined = await spawnReady(spec);
  await options.onStarted?.(child.pid!);
  let up = true;
  let stopping = false;
  let released = false;
  let timer: NodeJS.Timeout | undefined;
  let attempt = 0;
  let downSince = 0;
  /** A restart in progress: stop() waits for it, then stops what it started. */
  let restarting: Promise<void> | undefined;

  const scheduleRestart = () => {
    const delay = restartDelayMs(attempt, backoff.initialMs, backoff.maxMs);
    timer = setTimeout(() => {
      timer = undefined;
      restarting = spawnReady(spec).then(
        (started) => {
          restarting = undefined;
          if (stopping || released) {
            // Stopped meanwhile: stop() waits for this promise and then stops `child`.
            child = started;
            return;
          }
          child = started;
          up = true;
          attempt = 0;
          watch(started);
          void options.onStarted?.(started.pid!);
          log?.info({ pid: started.pid, downMs: Date.now() - downSince }, "embedded PostgreSQL restarted");
        },
        (err: unknown) => {
          restarting = undefined;
          if (stopping || released) return;
          attempt++;
          log?.warn({ err: (err as Error).message, retryInMs: restartDelayMs(attempt, backoff.initialMs, backoff.maxMs) }, "embedded PostgreSQL did not restart; trying again");
          scheduleRestart();
        },
      );
    }, delay);
    timer.unref?.();
  };

  const watch = (proc: ChildProcess) => {
    proc.once("exit", (code, signal) => {
      if (child === proc) child = undefined;
      if (stopping || released) return;
      up = false;
      downSince = Date.now();
      // Once per outage: the failed attempts after it are warnings.
      log?.error({ pid: proc.pid, code, signal }, "embedded PostgreSQL exited unexpectedly; restarting it");
      scheduleRestart();
    });
  };
  watch(child);

  const waitExit = (proc: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      const kill = setTimeout(() => proc.kill("SIGQUIT"), STOP_TIMEOUT_MS); // immediate shutdown after a minute
      proc.once("exit", () => {
        clearTimeout(kill);
        resolve();
      });
      proc.kill("SIGINT"); // fast shutdown
    });

  return {
    pid: () => child?.pid,
    isUp: () => up && !stopping,
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      if (restarting) await restarting.catch(() => {});
      const proc = child;
      if (proc) await waitExit(proc);
      child = undefined;
    },
    release() {
      released = true;
      if (timer) clearTimeout(timer);
      const proc = child;
      if (!proc) return;
      proc.stdout?.destroy();
      proc.stderr?.destroy();
      proc.unref();
    },
  };
}
