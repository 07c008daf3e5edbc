import type { Command } from "commander";
import { startWorkerProcess } from "../../lib/worker-process";
import type { CliApp } from "../runner";

/** Runs until SIGINT/SIGTERM, then stops the workers (in-flight jobs finish or return to the queue). */
export function registerWorker(program: Command, app: CliApp): void {
  program
    .command("worker")
    .description("run delivery and webhook workers only (no HTTP), as a separate process; start as many as you need")
    .action(async () => {
      const worker = await startWorkerProcess({ config: app.config() });
      await new Promise<void>((resolve) => {
        let stopping = false;
        const stop = (signal: string) => {
          if (stopping) return;
          stopping = true;
          worker.ctx.log.info({ signal }, "worker stopping");
          void worker.stop().then(resolve, resolve);
        };
        process.once("SIGINT", () => stop("SIGINT"));
        process.once("SIGTERM", () => stop("SIGTERM"));
      });
    });
}
