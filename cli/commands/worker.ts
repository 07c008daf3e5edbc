import type { Command } from "commander";
import { READY_MESSAGE } from "../../lib/workers/supervisor";
import { startWorkerProcess } from "../../lib/worker-process";
import type { CliApp } from "../runner";

/**
 * Runs until SIGINT/SIGTERM, then stops the workers (in-flight jobs finish or
 * return to the queue). Forked by the app's supervisor (MAILROOM_WORKERS=process),
 * it reports ready on its IPC channel and stops when that channel closes (the
 * app died: no orphan keeps delivering for an app that is gone).
 */
export function registerWorker(program: Command, app: CliApp): void {
  program
    .command("worker")
    .description("run delivery and webhook workers only (no HTTP), as a separate process; start as many as you need")
    .action(async () => {
      const worker = await startWorkerProcess({ config: app.config() });
      // The app may be gone already (stopped during our start): then the channel is closed, and "disconnect" below stops us.
      if (process.connected) process.send?.(READY_MESSAGE, undefined, undefined, () => {});
      await new Promise<void>((resolve) => {
        let stopping = false;
        const stop = (reason: string) => {
          if (stopping) return;
          stopping = true;
          worker.ctx.log.info({ reason }, "worker stopping");
          void worker.stop().then(resolve, resolve);
        };
        process.once("SIGINT", () => stop("SIGINT"));
        process.once("SIGTERM", () => stop("SIGTERM"));
        process.once("SIGHUP", () => stop("SIGHUP"));
        if (process.send) {
          process.once("disconnect", () => stop("the app process is gone"));
          if (!process.connected) stop("the app process is gone");
        }
      });
    });
}
