/**
 * `npm run bench:smtp`: SMTP submission against POST /email (docs/smtp.md, ADR 0700).
 *
 * Starts Mailroom (API + SMTP submission, workers off: what is measured is
 * acceptance, up to the 250 / 200 after COMMIT) in a child process, then for
 * 1, 4 and 16 connections sends a 2 KB HTML message to one recipient for
 * BENCH_DURATION seconds each way:
 *   - SMTP: nodemailer, one pooled STARTTLS connection per client (AUTH once,
 *     then MAIL/RCPT/DATA per message, as a smart host does), with its
 *     defaults and with a TCP_NODELAY socket (smtpSender);
 *   - API: fetch (keep-alive) POST /api/v1/email with the same content.
 * Prints messages/s and the accept latency p50/p99 of each.
 *
 * Env: BENCH_DURATION (s, default 10), BENCH_DATABASE_URL, BENCH_JSON=1.
 */
import { fork, type ChildProcess } from "node:child_process";
import { connect, type Socket } from "node:net";
import path from "node:path";
import nodemailer from "nodemailer";
import { freePort } from "../lib/storage/embedded";

const duration = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = [1, 4, 16];
const html = `<html><body>${"<p>Hello from the Mailroom benchmark, this paragraph pads the body.</p>".repeat(28)}</body></html>`.slice(0, 2048);

interface Ready {
  type: "ready";
  url: string;
  port: number;
  apiKey: string;
}

function start(port: number): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = fork(path.join(import.meta.dirname, "smtp-server.ts"), [], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, BENCH_SUBMISSION_PORT: String(port) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`smtp-server.ts exited with ${code}`)));
    child.on("message", (msg: { type: string }) => {
      if (msg.type === "ready") resolve({ child, ready: msg as Ready });
    });
  });
}

interface Figures {
  door: string;
  connections: number;
  messages: number;
  errors: number;
  perSecond: number;
  p50: number;
  p99: number;
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN);

/** `clients` loops sending back to back for `duration` seconds; each loop's `send` is one message. */
async function measure(door: Figures["door"], clients: number, makeSender: () => { send(): Promise<void>; close(): void }): Promise<Figures> {
  const senders = Array.from({ length: clients }, makeSender);
  // Warm up: each connection opened (and for SMTP, TLS and AUTH done) before the clock starts.
  await Promise.all(senders.map((s) => s.send()));
  const latencies: number[] = [];
  let errors = 0;
  const until = performance.now() + duration * 1000;
  const started = performance.now();
  await Promise.all(
    senders.map(async (s) => {
      while (performance.now() < until) {
        const t = performance.now();
        try {
          await s.send();
          latencies.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  for (const s of senders) s.close();
  latencies.sort((a, b) => a - b);
  return { door, connections: clients, messages: latencies.length, errors, perSecond: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/**
 * nodemailer leaves Nagle's algorithm on: the last piece of DATA then waits
 * for the server's delayed ACK (~40 ms on Linux loopback) on every message.
 * `noDelay` gives it a TCP_NODELAY socket (as Postfix and most MTAs use), to
 * measure the server rather than that client-side wait.
 */
function smtpSender(ready: Ready, noDelay: boolean) {
  const getSocket = (_options: unknown, callback: (err: Error | null, socket?: { connection: Socket }) => void) => {
    const socket = connect(ready.port, "127.0.0.1", () => callback(null, { connection: socket }));
    socket.setNoDelay(true);
    socket.once("error", (err) => callback(err));
  };
  const transport = nodemailer.createTransport({
    ...(noDelay && { getSocket }),
    host: "127.0.0.1",
    port: ready.port,
    pool: true,
    maxConnections: 1,
    maxMessages: Infinity,
    requireTLS: true,
    auth: { user: "apikey", pass: ready.apiKey },
    tls: { rejectUnauthorized: false },
  });
  return {
    send: async () => {
      const info = await transport.sendMail({ from: "Bench <bench@example.com>", to: "r@example.net", subject: "Benchmark", html });
      if (!info.response.startsWith("250 ")) throw new Error(info.response);
    },
    close: () => transport.close(),
  };
}

function apiSender(ready: Ready) {
  const body = JSON.stringify({ From: { name: "Bench", email: "bench@example.com" }, To: [{ name: "", email: "r@example.net" }], Subject: "Benchmark", ContentType: "HTML", HTMLContent: html });
  const headers = { Authorization: `Bearer ${ready.apiKey}`, "Content-Type": "application/json" };
  return {
    send: async () => {
      const res = await fetch(`${ready.url}/api/v1/email`, { method: "POST", headers, body });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    },
    close: () => {},
  };
}

async function main() {
  const { child, ready } = await start(await freePort());
  const results: Figures[] = [];
  try {
    for (const n of CONNECTIONS) {
      results.push(await measure("SMTP (nodemailer defaults)", n, () => smtpSender(ready, false)));
      results.push(await measure("SMTP (TCP_NODELAY client)", n, () => smtpSender(ready, true)));
      results.push(await measure("API", n, () => apiSender(ready)));
    }
  } finally {
    child.removeAllListeners("exit");
    child.send({ type: "stop" });
    await new Promise((r) => child.once("exit", r));
  }
  if (process.env.BENCH_JSON) {
    console.log(JSON.stringify(results, null, 2));
    return;
  }
  const f = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "-");
  console.log(`SMTP submission vs POST /email, ${duration} s each, 2 KB HTML, one recipient (acceptance only, workers off)`);
  console.log(`${"door".padEnd(27)} conns  messages/s  p50 ms  p99 ms  errors`);
  for (const r of results) console.log(`${r.door.padEnd(27)} ${String(r.connections).padStart(5)}  ${f(r.perSecond).padStart(10)}  ${f(r.p50).padStart(6)}  ${f(r.p99).padStart(6)}  ${r.errors}`);
  for (const n of CONNECTIONS) {
    const a = results.find((r) => r.door === "API" && r.connections === n)!;
    const ratios = results.filter((r) => r.door.startsWith("SMTP") && r.connections === n).map((r) => `${r.door} ${((100 * r.perSecond) / a.perSecond).toFixed(0)}%`);
    console.log(`${n} connection(s), share of the API's accepted rate: ${ratios.join(", ")}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
