/**
 * Child process of bench/e2e.ts: the SMTP relay that receives every
 * delivery (answers 250 at once, counts). Sends {type:"ready", port};
 * answers {type:"stats"} with {type:"stats", ...SinkStats}; exits on {type:"stop"}.
 * In its own process so its CPU is measured apart and it outlives a killed app.
 */
import { readFileSync } from "node:fs";
import { startCountingSink } from "../test/support/counting-sink";

async function main() {
  // bench:e2e --mx: the MX's certificate and key (PEM files), so it offers STARTTLS.
  const key = process.env.BENCH_SINK_TLS_KEY;
  const cert = process.env.BENCH_SINK_TLS_CERT;
  const sink = await startCountingSink(key && cert ? { tls: { key: readFileSync(key), cert: readFileSync(cert) } } : {});
  process.on("message", (msg: { type: string }) => {
    if (msg.type === "stats") process.send!({ type: "stats", ...sink.stats() });
    if (msg.type === "stop") void sink.stop().then(() => process.exit(0));
  });
  process.on("disconnect", () => process.exit(0)); // the benchmark is gone
  process.send!({ type: "ready", port: sink.port });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
