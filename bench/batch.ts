/**
 * `npm run bench:batch`: messages per second accepted through POST
 * /email/batch (batches of 100 and of 500) beside single POST /email, in the
 * same run against the same server (docs/BENCHMARKS.md, "Batches").
 *
 * Starts Mailroom as bench/api.ts does (bench/api-server.ts: API only,
 * workers off, embedded PostgreSQL in a temp dir, an `unlimited` account),
 * then for BENCH_DURATION seconds each runs closed-loop clients on loopback:
 * single messages (BENCH_CONNECTIONS clients, default 16), batches of 100
 * (4 clients) and batches of 500 (2 clients). Every message is the same
 * small one (one recipient, 2 KB HTML). Prints messages/s and the requests'
 * median latency per case, and the batch/single ratios.
 *
 * Env: BENCH_DURATION (s per case, default 10), BENCH_CONNECTIONS, BENCH_JSON=1.
 */
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";

const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const here = import.meta.dirname;

interface Ready {
  type: "ready";
  url: string;
  apiKey: string;
}

function startServer(): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = fork(path.join(here, "api-server.ts"), [], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, BENCH_EVENTS: "5" },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`api-server exited with ${code}`)));
    child.on("message", (msg: { type: string }) => {
      if (msg.type === "ready") resolve({ child, ready: msg as Ready });
    });
  });
}

const html = `<p>${"Thank you for your order. ".repeat(80)}</p>`;
const email = (i: number) => ({
  From: { name: "Shop", email: "shop@example.com" },
  To: [{ email: `r${i}@example.net` }],
  Subject: `Receipt ${i}`,
  ContentType: "HTML",
  HTMLContent: html,
});

interface Result {
  case: string;
  requests: number;
  messages: number;
  "messages/s": number;
  "median request (ms)": number;
  errors: number;
}

async function run(name: string, url: string, apiKey: string, clients: number, size: number): Promise<Result> {
  const path = size === 1 ? "/api/v1/email" : "/api/v1/email/batch";
  const body = JSON.stringify(size === 1 ? email(0) : Array.from({ length: size }, (_, i) => email(i)));
  const headers = { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" };
  const until = performance.now() + duration * 1000;
  const latencies: number[] = [];
  let messages = 0;
  let errors = 0;
  const client = async () => {
    while (performance.now() < until) {
      const t = performance.now();
      const res = await fetch(url + path, { method: "POST", headers, body });
      const json = (await res.json()) as { MessageID?: string } | { MessageID?: string }[];
      latencies.push(performance.now() - t);
      if (res.status !== 200) errors++;
      else messages += Array.isArray(json) ? json.filter((x) => x.MessageID).length : 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, client));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    case: name,
    requests: latencies.length,
    messages,
    "messages/s": Math.round(messages / seconds),
    "median request (ms)": Math.round(latencies[Math.floor(latencies.length / 2)] ?? 0),
    errors,
  };
}

const { child, ready } = await startServer();
try {
  const results = [
    await run(`POST /email (${connections} clients)`, ready.url, ready.apiKey, connections, 1),
    await run("POST /email/batch of 100 (4 clients)", ready.url, ready.apiKey, 4, 100),
    await run("POST /email/batch of 500 (2 clients)", ready.url, ready.apiKey, 2, 500),
  ];
  const single = results[0]!["messages/s"] || 1;
  if (process.env.BENCH_JSON) console.log(JSON.stringify(results));
  else {
    console.table(results);
    console.log(`batch of 100: ${(results[1]!["messages/s"] / single).toFixed(1)}× single; batch of 500: ${(results[2]!["messages/s"] / single).toFixed(1)}× single`);
  }
} finally {
  child.send({ type: "stop" });
  await new Promise((r) => child.once("exit", r));
}
