/**
 * Child process of bench/e2e.ts: the load generator (test/support/post-load.ts).
 * {type:"run", ...PostLoadOptions} starts a run and answers {type:"done", result}
 * when it ends; {type:"stop"} ends the current run early.
 * In its own process so its CPU is measured apart and the app's event loop is not shared with it.
 */
import { startPostLoad, type PostLoad, type PostLoadOptions } from "../test/support/post-load";

let current: PostLoad | undefined;
process.on("message", (msg: { type: string } & PostLoadOptions) => {
  if (msg.type === "run") {
    current = startPostLoad(msg);
    void current.done.then((result) => process.send!({ type: "done", result }));
  }
  if (msg.type === "stop") current?.stop();
});
process.on("disconnect", () => process.exit(0)); // the benchmark is gone
process.send!({ type: "ready" });
