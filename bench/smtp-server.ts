/**
 * Child process of bench/smtp.ts: the Mailroom server (API and SMTP
 * submission, no dashboard, workers off: acceptance only) with an
 * `unlimited` account. Sends {type:"ready", url, port, apiKey}; answers {type:"stop"}.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildConfig } from "../lib/config";
import { createAccount } from "../lib/domain/accounts/accounts";
import { startServer } from "../server";

const send = (msg: unknown) => process.send!(msg);

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-bench-smtp-"));
  const config = buildConfig({
    NODE_ENV: "production",
    MAILROOM_DATA_DIR: dataDir,
    ...(process.env.BENCH_DATABASE_URL && { DATABASE_URL: process.env.BENCH_DATABASE_URL }),
    MAILROOM_EMBEDDED_PG_PORT: "0",
    PORT: "0",
    MAILROOM_WORKERS: "off",
    // The queue is filled with nothing delivering: no backlog pushback (docs/contract.md §18).
    MAILROOM_MAX_BACKLOG: "0",
    MAILROOM_INBOUND_PORT: "0",
    MAILROOM_SUBMISSION_PORT: process.env.BENCH_SUBMISSION_PORT!,
    MAILROOM_SUBMISSION_TLS_PORT: "0",
    MAILROOM_SUBMISSION_MAX_CLIENTS: "1000",
    MAILROOM_SANDBOX_PORT: "0",
    MAILROOM_QUIET_START: "true",
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "error",
  });
  const server = await startServer({ config, dashboard: false });
  const account = await createAccount(server.ctx.database, { name: "Bench", plan: "unlimited", domain: "example.com", verified: true });
  process.on("message", async (msg: { type: string }) => {
    if (msg.type === "stop") {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
      send({ type: "stopped" });
      process.exit(0);
    }
  });
  send({ type: "ready", url: server.url, port: Number(process.env.BENCH_SUBMISSION_PORT), apiKey: account.apiKey });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
