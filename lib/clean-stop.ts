/**
 * The app process's stop when its process manager asks (docs/adr/0052):
 * SIGTERM, SIGINT or SIGHUP, to the app alone or to its whole process group,
 * or its parent gone (npm killed, a terminal closed). One ordered stop
 * (HTTP and SMTP drained, workers stopped, the database closed, the embedded
 * PostgreSQL stopped), whatever asked and however often; a stop asked for
 * while the start is still running waits for the start and then runs; after
 * `boundMs` the last resort (the postmaster killed) runs and the process
 * exits regardless. Pure of process globals: scripts/start.ts wires it.
 */

export interface CleanStopOptions {
  /** The longest a stop may take before the last resort. */
  boundMs: number;
  /** Kills what the ordered stop may have left (this process's postmaster); runs after every stop. */
  lastResort: () => Promise<unknown>;
  exit: (code: number) => void;
  log: (line: string) => void;
  setTimer?: (fn: () => void, ms: number) => unknown;
}

export interface CleanStop {
  /** The app is up: how to stop it. A stop asked for meanwhile starts now. */
  started(stop: () => Promise<void>): void;
  /** The start failed (it stopped what it had started): exit once the last resort ran. */
  startFailed(code: number): Promise<void>;
  /** Asks for the stop (a signal, the parent gone); later requests are ignored. */
  request(reason: string): void;
  /** Whether a stop was asked for. */
  requested(): boolean;
}

export function createCleanStop(options: CleanStopOptions): CleanStop {
  const setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  let stop: (() => Promise<void>) | undefined;
  let reason: string | undefined;
  let running = false;
  let exited = false;

  const finish = async (code: number) => {
    if (exited) return;
    await options.lastResort().catch((err: unknown) => options.log(`stop: the last resort failed: ${String(err)}`));
    if (exited) return;
    exited = true;
    options.exit(code);
  };

  const run = async () => {
    if (running || !stop || reason === undefined) return;
    running = true;
    try {
      await stop();
      await finish(0);
    } catch (err) {
      options.log(`stop: ${err instanceof Error ? err.message : String(err)}`);
      await finish(1);
    }
  };

  return {
    started(fn) {
      stop = fn;
      void run();
    },
    async startFailed(code) {
      await finish(code);
    },
    request(why) {
      if (reason !== undefined) return;
      reason = why;
      options.log(`${why}: stopping`);
      setTimer(() => {
        if (exited) return;
        options.log(`stop: not done after ${options.boundMs} ms; stopping what is left at once`);
        void finish(1);
      }, options.boundMs);
      void run();
    },
    requested: () => reason !== undefined,
  };
}

/**
 * Calls `onGone` once when this process's parent is gone (it was reparented:
 * its parent pid changed). `readParent` is process.ppid's reader; a process
 * started by init (parent 1) is never taken for orphaned.
 */
export function watchParent(readParent: () => number, onGone: () => void, every: (fn: () => void) => void): void {
  const first = readParent();
  if (first <= 1) return;
  let told = false;
  every(() => {
    if (!told && readParent() !== first) {
      told = true;
      onGone();
    }
  });
}
