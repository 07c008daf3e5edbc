/**
 * Child process of bench/e2e.ts: the SMTP relay that receives every
 * delivery (answers 250 at once, counts). Sends {type:"ready", port};
 * answers {type:"stats"} with {type:"stats", ...SinkStats}; exits on {type:"stop"}.
 * In its own process so its CPU is measured apart and it outlives a killed app.
 */
import { startCountingSink } from "../test/support/counting-sink";

async function main() {
  const sink = await startCountingSink();
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
