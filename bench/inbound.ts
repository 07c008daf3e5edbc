/**
 * `npm run bench:inbound`: inbound mail received and posted (docs/contract.md §13).
 *
 * Starts Mailroom in a child process (bench/inbound-server.ts: inbound SMTP,
 * workers inline) with a route to an HTTP receiver in this process, then 16
 * nodemailer connections (pooled, one each, TCP_NODELAY) send 10 KB messages back to back
 * for BENCH_DURATION seconds (default 10). Prints messages/s received (250,
 * after COMMIT), the accept latency p50/p99, how many were posted, and the
 * receive→POST latency p50/p99 (from the 250 to the receiver's request), and the
 * server process's CPU time per message (user + system, warm-up excluded).
 *
 * Env: BENCH_DURATION (s), BENCH_CONNECTIONS (default 16), BENCH_DATABASE_URL, BENCH_JSON=1, BENCH_APP_PROFILE=<dir>,
 * BENCH_WORKERS=off (receiving alone: nothing is posted).
 */
import { fork, type ChildProcess } from "node:child_process";
import http from "node:http";
import { connect, type Socket } from "node:net";
import path from "node:path";
import nodemailer from "nodemailer";

const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const text = "Hello from the Mailroom inbound benchmark; this line pads the body.\n".repeat(150).slice(0, 10_000);
const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN);

async function main() {
  const accepted = new Map<string, number>();
  const posted = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      try {
        const subject = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { Subject: string }).Subject;
        if (!posted.has(subject)) posted.set(subject, at);
      } catch {
        // counted as not posted
      }
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/inbound`;

  const child: ChildProcess = fork(path.join(import.meta.dirname, "inbound-server.ts"), [], {
    // BENCH_APP_PROFILE=<dir>: a V8 CPU profile of the server process, written when it exits.
    execArgv: ["--import", "tsx", ...(process.env.BENCH_APP_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_APP_PROFILE}`] : [])],
    env: { ...process.env, BENCH_RECEIVER_URL: receiverUrl },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ready = await new Promise<{ host: string; port: number }>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`inbound-server.ts exited with ${code}`)));
    child.on("message", (msg: { type: string; host: string; port: number }) => {
      if (msg.type === "ready") resolve(msg);
    });
  });

  const latencies: number[] = [];
  let errors = 0;
  let seq = 0;
  // A TCP_NODELAY socket, as MTAs use (nodemailer's default leaves Nagle on: ~45 ms per message, see "SMTP submission").
  const getSocket = (_options: unknown, callback: (err: Error | null, socket?: { connection: Socket }) => void) => {
    const socket = connect(ready.port, ready.host, () => callback(null, { connection: socket }));
    socket.setNoDelay(true);
    socket.once("error", (err) => callback(err));
  };
  const transports = Array.from({ length: connections }, () =>
    nodemailer.createTransport({ getSocket, host: ready.host, port: ready.port, secure: false, ignoreTLS: true, pool: true, maxConnections: 1, maxMessages: Infinity }),
  );
  const sendOne = async (t: nodemailer.Transporter) => {
    const subject = `bench ${seq++}`;
    const t0 = performance.now();
    try {
      await t.sendMail({ from: "load@sender.example", to: "bench@in.example.com", subject, text });
      const t1 = performance.now();
      accepted.set(subject, t1);
      latencies.push(t1 - t0);
    } catch {
      errors++;
    }
  };
  // Warm up one message per connection, then measure.
  await Promise.all(transports.map(sendOne));
  accepted.clear();
  latencies.length = 0;
  // The server process's CPU time from here to the last post: per message, a figure the machine's load hardly moves.
  const cpuAt = () =>
    new Promise<number>((resolve) => {
      child.once("message", (msg: { type: string; cpuMs: number }) => resolve(msg.cpuMs));
      child.send({ type: "cpu" });
    });
  const cpuStart = await cpuAt();
  const started = performance.now();
  const until = started + duration * 1000;
  await Promise.all(
    transports.map(async (t) => {
      while (performance.now() < until) await sendOne(t);
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  for (const t of transports) t.close();

  // Wait (up to 60 s) for every accepted message to be posted.
  const deadline = performance.now() + (process.env.BENCH_WORKERS === "off" ? 0 : 60_000);
  while (performance.now() < deadline && [...accepted.keys()].some((s) => !posted.has(s))) await new Promise((r) => setTimeout(r, 200));
  const serverCpuMs = (await cpuAt()) - cpuStart;
  const delays = [...accepted].flatMap(([s, at]) => (posted.has(s) ? [posted.get(s)! - at] : [])).sort((a, b) => a - b);
  latencies.sort((a, b) => a - b);
  const figures = {
    connections,
    seconds: Number(elapsed.toFixed(1)),
    received: accepted.size,
    errors,
    perSecond: Number((accepted.size / elapsed).toFixed(1)),
    acceptP50: Math.round(percentile(latencies, 50)),
    acceptP99: Math.round(percentile(latencies, 99)),
    posted: delays.length,
    receiveToPostP50: Math.round(percentile(delays, 50)),
    receiveToPostP99: Math.round(percentile(delays, 99)),
    serverCpuMsPerMessage: Number((serverCpuMs / Math.max(1, accepted.size)).toFixed(2)),
  };
  if (process.env.BENCH_JSON) console.log(JSON.stringify(figures));
  else {
    console.log(`inbound: ${figures.connections} connections, ${figures.seconds} s, 10 KB messages`);
    console.log(`  received ${figures.received} (${figures.perSecond} msg/s), errors ${figures.errors}, accept p50 ${figures.acceptP50} ms p99 ${figures.acceptP99} ms`);
    console.log(`  posted ${figures.posted}/${figures.received}, receive→POST p50 ${figures.receiveToPostP50} ms p99 ${figures.receiveToPostP99} ms`);
    console.log(`  server process CPU ${figures.serverCpuMsPerMessage} ms per message (received and posted)`);
  }
  child.send({ type: "stop" });
  await new Promise<void>((r) => {
    child.once("exit", () => r());
    setTimeout(() => {
      child.kill("SIGTERM");
      r();
    }, 30_000);
  });
  receiver.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
