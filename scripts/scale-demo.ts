/**
 * `npm run scale:demo [-- --messages 2000]`: the production shape on one
 * machine. A PostgreSQL server (DATABASE_URL, else a throwaway cluster of the
 * machine's Debian PostgreSQL), two API processes on two ports and two
 * `mailroom worker` processes. Sends through both API processes, checks that a
 * daily limit holds exactly across them, waits for every recipient's final
 * event and every delivery notification, and prints the figures.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort, startAppProcess, startWorkerProcess, waitFor } from "../test/support/processes";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const total = Number(args.get("messages") ?? 2000);
const root = path.resolve(import.meta.dirname, "..");

async function debianCluster(): Promise<{ url: string; stop(): void }> {
  const versions = existsSync("/usr/lib/postgresql") ? readdirSync("/usr/lib/postgresql").sort() : [];
  const bin = versions.length ? `/usr/lib/postgresql/${versions.at(-1)}/bin` : "";
  if (!bin || !existsSync(`${bin}/initdb`)) throw new Error("Set DATABASE_URL, or apt-get install postgresql for a throwaway cluster");
  const dir = mkdtempSync(path.join(os.tmpdir(), "mailroom-scale-pg-"));
  const port = await freePort();
  const asPg = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--"] : [];
  if (asPg.length) {
    spawnSync("useradd", ["-r", "-m", "postgres"]);
    execFileSync("chown", ["postgres", dir]);
  }
  const run = (cmd: string[]) => execFileSync(asPg[0] ?? cmd[0]!, [...asPg.slice(1), ...(asPg.length ? cmd : cmd.slice(1))], { stdio: "ignore" });
  run([`${bin}/initdb`, "-D", `${dir}/data`, "-U", "mailroom", "--auth=trust", "-E", "UTF8"]);
  run([`${bin}/pg_ctl`, "-D", `${dir}/data`, "-l", `${dir}/log`, "-w", "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300`, "start"]);
  const admin = new pg.Client({ connectionString: `postgres://mailroom@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query("CREATE DATABASE mailroom");
  await admin.end();
  return {
    url: `postgres://mailroom@127.0.0.1:${port}/mailroom`,
    stop: () => {
      spawnSync(asPg[0] ?? `${bin}/pg_ctl`, [...asPg.slice(1), ...(asPg.length ? [`${bin}/pg_ctl`] : []), "-D", `${dir}/data`, "-m", "fast", "stop"]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function main() {
  const cluster = process.env.DATABASE_URL ? { url: process.env.DATABASE_URL, stop: () => {} } : await debianCluster();
  const env = { DATABASE_URL: cluster.url, MAILROOM_ALLOW_PRIVATE_WEBHOOKS: "true", MAILROOM_WEBHOOK_RETRY_SCHEDULE: "1s,2s,5s", LOG_LEVEL: "error" };
  const notified = new Set<string>();
  const receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      notified.add((JSON.parse(body) as { EventData: { MessageID: string } }).EventData.MessageID);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));

  console.log("starting 2 API processes and 2 workers on", cluster.url.replace(/\/\/[^@]*@/, "//"));
  const apps = [await startAppProcess(env), await startAppProcess(env)];
  const workers = [startWorkerProcess(env), startWorkerProcess(env)];
  const cli = (...a: string[]) => JSON.parse(execFileSync(process.execPath, ["bin/mailroom.mjs", ...a, "--json"], { cwd: root, env: { ...process.env, ...env }, encoding: "utf8" }));
  try {
    // 1. A daily limit of 50 holds exactly across both API processes.
    const limited = cli("accounts", "create", "--name", "Limited", "--plan", "trial", "--domain", "example.com", "--verified") as { accountId: string; apiKey: string };
    cli("accounts", "set-limits", limited.accountId, "--per-minute", "1000", "--per-hour", "1000", "--per-day", "50");
    const one = (key: string, i: number, app: string) =>
      fetch(`${app}/api/v1/email`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ From: { email: "demo@example.com" }, To: [{ email: `r${i}@example.org` }], Subject: `scale ${i}`, ContentType: "Text", PlainContent: "hello" }),
      });
    const limitedResults: number[] = [];
    let k = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = k++; i < 150; i = k++) limitedResults.push((await one(limited.apiKey, i, apps[i % 2]!.url)).status);
      }),
    );
    const admitted = limitedResults.filter((s) => s === 200).length;
    const others = limitedResults.filter((s) => s !== 200 && s !== 429);
    console.log(`limit: 150 requests (16 clients) across 2 processes against a daily limit of 50 → ${admitted} admitted, ${limitedResults.filter((s) => s === 429).length} refused${others.length ? `, other answers: ${others.join(",")}` : ""}`);

    // 2. Throughput through both API processes and both workers, with a delivery webhook.
    const load = cli("accounts", "create", "--name", "Load", "--plan", "unlimited", "--domain", "example.com", "--verified") as { accountId: string; apiKey: string };
    const hook = await fetch(`${apps[0]!.url}/api/v1/webhooks`, {
      method: "POST",
      headers: { Authorization: `Bearer ${load.apiKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({ Event: "delivery", WebhookURL: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/` }),
    });
    if (hook.status !== 200) throw new Error(`webhook registration: ${hook.status}`);
    const started = Date.now();
    let next = 0;
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < total) {
          const i = next++;
          const res = await one(load.apiKey, i, apps[i % 2]!.url);
          if (res.status === 200) ids.push(((await res.json()) as { MessageID: string }).MessageID);
        }
      }),
    );
    const acceptSeconds = (Date.now() - started) / 1000;
    const db = new pg.Client({ connectionString: cluster.url });
    await db.connect();
    await waitFor("every recipient's final event and notification", async () => {
      const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND type IN ('delivered','failed','rejected')", [load.accountId]);
      return rows[0]!.n >= ids.length && notified.size >= ids.length;
    }, 300_000, 500);
    const allSeconds = (Date.now() - started) / 1000;
    await db.end();
    console.log(`accepted ${ids.length}/${total} in ${acceptSeconds.toFixed(1)} s (${(ids.length / acceptSeconds).toFixed(0)}/s through 2 API processes)`);
    console.log(`all final and notified after ${allSeconds.toFixed(1)} s (${(ids.length / allSeconds).toFixed(0)} delivered/s end to end by 2 workers); notifications: ${notified.size} distinct`);
    if (admitted !== 50 || notified.size !== ids.length) process.exitCode = 1;
  } finally {
    await Promise.all([...apps, ...workers].map((p) => p.kill("SIGTERM")));
    receiver.close();
    cluster.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
