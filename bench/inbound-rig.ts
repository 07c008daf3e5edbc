/**
 * What the inbound benchmarks share (bench/inbound.ts, bench/hostile.ts and
 * their server children): an HTTP receiver for the routes' posts, the fork of
 * a server child, and the child's configuration and start.
 */
import { fork, type ChildProcess } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { buildConfig } from "../lib/config";
import { startServer } from "../server";

/** A receiver that answers 200 and hands each post's parsed JSON (undefined when it is not JSON) to `onPost`. */
export async function startPostReceiver(onPost: (json: unknown, at: number) => void): Promise<{ url: string; close(): void }> {
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      let json: unknown;
      try {
        json = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        json = undefined;
      }
      onPost(json, at);
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/inbound`, close: () => receiver.close() };
}

/** Forks a server child (`bench/<script>`) that posts to `receiverUrl`; BENCH_APP_PROFILE=<dir> writes its V8 CPU profile when it exits. */
export function forkServerChild(script: string, receiverUrl: string): ChildProcess {
  return fork(path.join(import.meta.dirname, script), [], {
    execArgv: ["--import", "tsx", ...(process.env.BENCH_APP_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_APP_PROFILE}`] : [])],
    env: { ...process.env, BENCH_RECEIVER_URL: receiverUrl },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}

/** Asks the child to stop ({type:"stop"}) and waits for it to exit; past 30 s, SIGKILL. */
export function stopServerChild(child: ChildProcess): Promise<void> {
  child.send({ type: "stop" });
  return new Promise<void>((r) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      r();
    }, 30_000);
    child.once("exit", () => {
      clearTimeout(timer);
      r();
    });
  });
}

/** No internet DNS in a benchmark: sender authentication asks a resolver that knows no name, and answers "none" at once. */
const noDns = async (name: string) => {
  throw Object.assign(new Error(`no record for ${name}`), { code: "ENOTFOUND" });
};

/** The server of a child: API, inbound SMTP, workers inline, every port free, in `dataDir`, with `env` over the defaults. */
export function startBenchServer(dataDir: string, env: Record<string, string | undefined> = {}) {
  const config = buildConfig({
    NODE_ENV: "production",
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_EMBEDDED_PG_PORT: "0",
    PORT: "0",
    MAILROOM_WORKERS: "inline",
    MAILROOM_INBOUND_PORT: "0",
    MAILROOM_SUBMISSION_PORT: "0",
    MAILROOM_SUBMISSION_TLS_PORT: "0",
    MAILROOM_SANDBOX_PORT: "0",
    MAILROOM_ALLOW_PRIVATE_WEBHOOKS: "true",
    MAILROOM_QUIET_START: "true",
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "error",
    ...env,
  });
  return startServer({ config, dashboard: false, workers: { inboundPost: { authResolver: noDns } } });
}
