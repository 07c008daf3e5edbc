/**
 * Child process of bench/inbound.ts: the Mailroom server (API, inbound SMTP,
 * workers inline: the inbound-post loop posts what is received) with an
 * account whose domain `in.example.com` routes to BENCH_RECEIVER_URL.
 * Sends {type:"ready", host, port}; answers {type:"cpu"} with its CPU time so far (ms) and {type:"stop"}.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createAccount } from "../lib/domain/accounts/accounts";
import { createInboundRoute } from "../lib/domain/inbound/routes";
import { getInboundAddress } from "../lib/inbound/inbound-server";
import { startBenchServer } from "./inbound-rig";

const send = (msg: unknown) => process.send!(msg);

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-bench-inbound-"));
  const server = await startBenchServer(dataDir, {
    ...(process.env.BENCH_DATABASE_URL && { DATABASE_URL: process.env.BENCH_DATABASE_URL }),
    MAILROOM_WORKERS: process.env.BENCH_WORKERS ?? "inline",
    MAILROOM_INBOUND_CONNECTIONS_PER_MINUTE: "100000",
    MAILROOM_INBOUND_CONNECTIONS_PER_ADDRESS: "1000",
  });
  const account = await createAccount(server.ctx.database, { name: "Bench", plan: "unlimited", domain: "in.example.com", verified: true });
  await createInboundRoute(server.ctx.database, account.accountId, { match: "*@in.example.com", webhookUrl: process.env.BENCH_RECEIVER_URL! }, async () => {});
  process.on("message", async (msg: { type: string }) => {
    if (msg.type === "cpu") {
      const { user, system } = process.cpuUsage();
      send({ type: "cpu", cpuMs: (user + system) / 1000 });
      return;
    }
    if (msg.type === "stop") {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
      send({ type: "stopped" });
      process.exit(0);
    }
  });
  const inbound = getInboundAddress(server.ctx)!;
  send({ type: "ready", host: inbound.host, port: inbound.port });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
