/**
 * `npm run bench:smtp-client`: CPU per message of delivery's SMTP client
 * (lib/delivery/smtp-client.ts) and of the SMTP sink that receives
 * (bench/e2e-sink.ts, in its own process): BENCH_MESSAGES raw ~3 KB copies
 * (default 8000), 24 in flight over 5 pooled connections, three rounds
 * (the first warms the JIT). docs/adr/0023 has the figures before and after.
 */
import { fork } from "node:child_process";
import path from "node:path";
import { SmtpClient } from "../lib/delivery/smtp-client";
import { readStat } from "../test/support/proc-stats";

const raw = Buffer.from(
  "From: a@bench.example\r\nTo: c@d.example\r\nSubject: hi\r\nMessage-ID: <x@bench.example>\r\n\r\n" +
    "<p>hello world and more text to make it longer</p>\r\n".repeat(60),
);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 8000);
const IN_FLIGHT = 24;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function main() {
  const sink = fork(path.join(import.meta.dirname, "e2e-sink.ts"), [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const port = await new Promise<number>((resolve) => sink.on("message", (m: { type: string; port: number }) => m.type === "ready" && resolve(m.port)));
  const target = { host: "127.0.0.1", port, secure: false };
  console.log(`bench:smtp-client: ${MESSAGES} copies of ${raw.length} bytes, ${IN_FLIGHT} in flight, 5 connections, sink in its own process`);
  for (let round = 1; round <= 3; round++) {
    const client = new SmtpClient({ heloName: "bench.example", maxConnections: 5 });
    const started = Date.now();
    const client0 = cpuMs();
    const sink0 = readStat(sink.pid!)?.cpuMs ?? NaN;
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < MESSAGES) {
          next++;
          const { answer } = await client.send(target, { from: "bounce@bench.example", to: "x@d.example" }, raw);
          if (answer.responseCode !== 250) throw new Error(`the sink answered ${answer.responseCode} ${answer.response}`);
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    const sinkMs = (readStat(sink.pid!)?.cpuMs ?? NaN) - sink0;
    console.log(
      `  round ${round}: client ${((cpuMs() - client0) / MESSAGES).toFixed(3)} ms CPU/msg, sink ${(sinkMs / MESSAGES).toFixed(3)} ms CPU/msg, ${(MESSAGES / seconds).toFixed(0)} msg/s`,
    );
    client.close();
  }
  sink.send({ type: "stop" });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
