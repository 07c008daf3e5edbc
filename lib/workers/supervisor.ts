import { fork, type ChildProcess } from "node:child_process";
import os from "node:os";
import type { Logger } from "../logger";

/**
 * Keeps N child processes running (docs/adr/0021): the queue workers of
 * `MAILROOM_WORKERS=process`, so that delivery's CPU work never runs on the
 * event loop that answers HTTP. A child that exits without being asked is
 * logged and started again after a backoff (1 s doubling to 30 s; back to
 * 1 s once a child has run a minute). `stop()` asks each child to stop
 * (SIGTERM: it finishes or releases its jobs) and kills one that has not
 * exited after `stopTimeoutMs`. A child learns of its parent's death by its
 * IPC channel closing (cli/commands/worker.ts) and stops too.
 */

export interface ChildSpec {
  /** Module forked (with the parent's Node; `execArgv` as given). */
  modulePath: string;
  args: string[];
  /** The environment of the child in slot `index` (0 … count − 1), the same slot across restarts. */
  env: NodeJS.ProcessEnv | ((index: number) => NodeJS.ProcessEnv);
  execArgv?: string[];
}

export interface SupervisorOptions {
  count: number;
  child: ChildSpec;
  log: Logger;
  /** How long a start may take before the supervisor stops waiting for "ready" (the child keeps starting). */
  readyTimeoutMs?: number;
  /** Added to each child's nice value (0: as the parent). */
  nice?: number;
  stopTimeoutMs?: number;
  backoff?: { initialMs: number; maxMs: number; resetAfterMs: number };
}

export interface Supervisor {
  /** Resolves when every child has reported ready once, or the ready timeout passed. */
  ready: Promise<void>;
  pids(): number[];
  restarts(): number;
  stop(): Promise<void>;
}

const DEFAULT_BACKOFF = { initialMs: 1000, maxMs: 30_000, resetAfterMs: 60_000 };

/** What a child sends on its IPC channel once its workers run. */
export const READY_MESSAGE = { type: "mailroom-worker-ready" } as const;

export function isReadyMessage(msg: unknown): boolean {
  return typeof msg === "object" && msg !== null && (msg as { type?: unknown }).type === READY_MESSAGE.type;
}

export function startSupervisor(options: SupervisorOptions): Supervisor {
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const stopTimeoutMs = options.stopTimeoutMs ?? 30_000;
  const log = options.log;
  let stopping = false;
  let restarts = 0;
  const slots: { child?: ChildProcess; delayMs: number; timer?: NodeJS.Timeout }[] = [];
  const readyWaits: Promise<void>[] = [];

  const launch = (slot: (typeof slots)[number], index: number, onReady?: () => void) => {
    const startedAt = Date.now();
    const child = fork(options.child.modulePath, options.child.args, {
      env: typeof options.child.env === "function" ? options.child.env(index) : options.child.env,
      execArgv: options.child.execArgv ?? process.execArgv,
      stdio: "inherit",
    });
    slot.child = child;
    if (options.nice && child.pid) {
      try {
        os.setPriority(child.pid, Math.min(19, os.getPriority(process.pid) + options.nice));
      } catch (err) {
        log.warn({ err, pid: child.pid }, "could not lower the worker process's priority");
      }
    }
    child.on("message", (msg) => {
      if (isReadyMessage(msg)) {
        log.info({ worker: index, pid: child.pid }, "worker process ready");
        onReady?.();
      }
    });
    child.on("error", (err) => log.error({ err, worker: index }, "worker process error"));
    child.once("exit", (code, signal) => {
      if (slot.child === child) slot.child = undefined;
      onReady?.(); // a child that died before ready must not hold the start up
      if (stopping) return;
      // A child that ran long enough was healthy: its next failure starts the backoff afresh.
      if (Date.now() - startedAt >= backoff.resetAfterMs) slot.delayMs = backoff.initialMs;
      log.error({ worker: index, pid: child.pid, code, signal, restartInMs: slot.delayMs }, "worker process exited; restarting");
      slot.timer = setTimeout(() => {
        slot.timer = undefined;
        if (stopping) return;
        restarts++;
        launch(slot, index);
      }, slot.delayMs);
      slot.delayMs = Math.min(slot.delayMs * 2, backoff.maxMs);
    });
  };

  for (let i = 0; i < options.count; i++) {
    const slot = { delayMs: backoff.initialMs } as (typeof slots)[number];
    slots.push(slot);
    readyWaits.push(new Promise<void>((resolve) => launch(slot, i, resolve)));
  }
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
  const ready = Promise.race([
    Promise.all(readyWaits).then(() => undefined),
    new Promise<void>((resolve) => setTimeout(resolve, readyTimeoutMs).unref()),
  ]);

  return {
    ready,
    pids: () => slots.flatMap((s) => (s.child?.pid ? [s.child.pid] : [])),
    restarts: () => restarts,
    async stop() {
      stopping = true;
      await Promise.all(
        slots.map(async (slot) => {
          clearTimeout(slot.timer);
          const child = slot.child;
          if (!child || child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
          child.kill("SIGTERM");
          const timer = setTimeout(() => {
            log.error({ pid: child.pid }, "worker process did not stop in time; killing it");
            child.kill("SIGKILL");
          }, stopTimeoutMs);
          await exited;
          clearTimeout(timer);
        }),
      );
    },
  };
}
