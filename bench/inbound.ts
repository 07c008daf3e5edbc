/**
 * `npm run bench:inbound`: inbound mail received and posted (docs/contract.md §13).
 *
 * Starts Mailroom in a child process (bench/inbound-server.ts: inbound SMTP,
 * workers inline) with a route to an HTTP receiver in this process, then 16
 * SMTP connections (bench/smtp-load-client.ts: TCP_NODELAY, MAIL/RCPT/DATA pipelined as MTAs
 * send them, the message prebuilt) send 10 KB messages back to back
 * for BENCH_DURATION seconds (default 10). Prints messages/s received (250,
 * after COMMIT), the accept latency p50/p99, how many were posted and the sustained
 * rate received and posted (all of them over the time to the last POST), and the
 * receive→POST latency p50/p99 (from the 250 to the receiver's request), and the
 * server process's CPU time per message (user + system, warm-up excluded),
 * and the CPU per message of every process: the server's tree (its embedded
 * PostgreSQL included, not a BENCH_DATABASE_URL server) and this one (the
 * load client and the receiver).
 *
 * Env: BENCH_DURATION (s), BENCH_CONNECTIONS (default 16), BENCH_DATABASE_URL, BENCH_JSON=1, BENCH_APP_PROFILE=<dir>,
 * BENCH_WORKERS=off (receiving alone: nothing is posted).
 */
import type { ChildProcess } from "node:child_process";
import { processTree } from "../test/support/proc-stats";
import { forkServerChild, startPostReceiver, stopServerChild } from "./inbound-rig";
import { dataOf, openSmtpLoadSession, type SmtpLoadSession } from "./smtp-load-client";

const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const text = "Hello from the Mailroom inbound benchmark; this line pads the body.\n".repeat(150).slice(0, 10_000);
const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN);

async function main() {
  const accepted = new Map<string, number>();
  const posted = new Map<string, number>();
  const receiver = await startPostReceiver((json, at) => {
    const subject = (json as { Subject?: unknown } | undefined)?.Subject;
    // Not JSON, or no Subject: counted as not posted.
    if (typeof subject === "string" && !posted.has(subject)) posted.set(subject, at);
  });
  const child: ChildProcess = forkServerChild("inbound-server.ts", receiver.url);

  const ready = await new Promise<{ host: string; port: number }>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`inbound-server.ts exited with ${code}`)));
    child.on("message", (msg: { type: string; host: string; port: number }) => {
      if (msg.type === "ready") resolve(msg);
    });
  });

  const latencies: number[] = [];
  let errors = 0;
  let seq = 0;
  const sessions = await Promise.all(Array.from({ length: connections }, () => openSmtpLoadSession(ready.host, ready.port)));
  // The message is built once; each send changes only its Subject (the receiver matches posts by it).
  const date = new Date().toUTCString().replace("GMT", "+0000");
  const template = `From: Load <load@sender.example>\nTo: bench@in.example.com\nSubject: %SUBJECT%\nDate: ${date}\nMessage-ID: <%SUBJECT%@sender.example>\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n${text}`;
  const sendOne = async (session: SmtpLoadSession) => {
    const subject = `bench-${seq++}`;
    const message = dataOf(template.replaceAll("%SUBJECT%", subject));
    const t0 = performance.now();
    try {
      await session.send("load@sender.example", "bench@in.example.com", message);
      const t1 = performance.now();
      accepted.set(subject, t1);
      latencies.push(t1 - t0);
    } catch {
      errors++;
    }
  };
  // Warm up one message per connection, then measure.
  await Promise.all(sessions.map(sendOne));
  accepted.clear();
  latencies.length = 0;
  // The server process's CPU time from here to the last post: per message, a figure the machine's load hardly moves.
  const cpuAt = () =>
    new Promise<number>((resolve) => {
      child.once("message", (msg: { type: string; cpuMs: number }) => resolve(msg.cpuMs));
      child.send({ type: "cpu" });
    });
  // The server's tree (embedded PostgreSQL's backends included; exited ones through their parent's count) and this process.
  const allCpuMs = () => {
    const own = process.cpuUsage();
    return processTree(child.pid!).reduce((sum, s) => sum + s.cpuMs + s.childrenCpuMs, 0) + (own.user + own.system) / 1000;
  };
  const cpuStart = await cpuAt();
  const allStart = allCpuMs();
  const started = performance.now();
  const until = started + duration * 1000;
  await Promise.all(
    sessions.map(async (session) => {
      while (performance.now() < until) await sendOne(session);
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  for (const session of sessions) session.close();

  // Wait (up to 60 s) for every accepted message to be posted.
  const deadline = performance.now() + (process.env.BENCH_WORKERS === "off" ? 0 : 60_000);
  while (performance.now() < deadline && [...accepted.keys()].some((s) => !posted.has(s))) await new Promise((r) => setTimeout(r, 200));
  const serverCpuMs = (await cpuAt()) - cpuStart;
  const allCpu = allCpuMs() - allStart;
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
    // Sustained: every message received and posted, over the time from the first send to the last POST.
    postedPerSecond: delays.length ? Number((delays.length / ((Math.max(...posted.values()) - started) / 1000)).toFixed(1)) : 0,
    receiveToPostP50: Math.round(percentile(delays, 50)),
    receiveToPostP99: Math.round(percentile(delays, 99)),
    serverCpuMsPerMessage: Number((serverCpuMs / Math.max(1, accepted.size)).toFixed(2)),
    allCpuMsPerMessage: Number((allCpu / Math.max(1, accepted.size)).toFixed(2)),
  };
  if (process.env.BENCH_JSON) console.log(JSON.stringify(figures));
  else {
    console.log(`inbound: ${figures.connections} connections, ${figures.seconds} s, 10 KB messages`);
    console.log(`  received ${figures.received} (${figures.perSecond} msg/s), errors ${figures.errors}, accept p50 ${figures.acceptP50} ms p99 ${figures.acceptP99} ms`);
    console.log(`  posted ${figures.posted}/${figures.received} (${figures.postedPerSecond} msg/s received and posted, to the last POST), receive→POST p50 ${figures.receiveToPostP50} ms p99 ${figures.receiveToPostP99} ms`);
    console.log(`  server process CPU ${figures.serverCpuMsPerMessage} ms per message (received and posted)`);
    console.log(`  all processes CPU ${figures.allCpuMsPerMessage} ms per message (server, its PostgreSQL, load client and receiver)`);
  }
  await stopServerChild(child);
  receiver.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
