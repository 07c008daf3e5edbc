/**
 * `npm run bench:hostile`: what a stranger's worst input costs the instance
 * (docs/BENCHMARKS.md, "Hostile input"). Starts Mailroom in a child process
 * (bench/hostile-server.ts: API, inbound SMTP, workers inline, embedded
 * PostgreSQL) with an HTTP receiver for its inbound routes in this process,
 * then runs, one after the other:
 *
 * - recipients: one 10 MB message to support+1@ … support+100@ of one
 *   route, in one SMTP transaction;
 * - signatures: one 10 MB message with 1,980 DKIM-Signature fields (the most the header-field limit of docs/adr/0802 lets through), each
 *   with its own l=, and 1 s later an ordinary message of another account
 *   (how long until that one is posted); then one with 50, the most accepted;
 * - renders: 100 concurrent POST /email with a template of five nested
 *   sections over a 30-item list (a `send` key), while another account
 *   sends ordinary messages, 50 a second (their latency percentiles), after
 *   the same burst of 100 ordinary sends as the control (what any 100 requests
 *   at once cost the other tenant on this machine).
 *
 * For each: the CPU time of every process of the server's tree (utime +
 * stime from /proc, PostgreSQL's exited backends through their parent),
 * counted until the tree has been idle for a second (work that goes on
 * after the answer counts), the inbound tables' bytes and rows added, and
 * the posts that reached the receiver; for the renders, the server's event
 * loop delay (p99, max) over each burst. Env: BENCH_ONLY=recipients,signatures,renders,
 * BENCH_APP_PROFILE=<dir> (a CPU profile of the server process),
 * MAILROOM_API_SENDS_PER_ACCOUNT / MAILROOM_API_SENDS_WAITING_PER_ACCOUNT (the
 * server's per-account line, docs/adr/0133; 0 in progress: none, as before it).
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import os from "node:os";
import nodemailer from "nodemailer";
import { processTree } from "../test/support/proc-stats";
import { forkServerChild, startPostReceiver, stopServerChild } from "./inbound-rig";

interface Ready {
  host: string;
  port: number;
  api: string;
  attackerKey: string;
  templateId: number;
  otherKey: string;
}

const only = new Set((process.env.BENCH_ONLY ?? "recipients,signatures,renders").split(","));
const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A 10 MB message: headers, a line of text, a 7.5 MB attachment of random bytes (nothing to compress) in base64, 76-character lines. */
function bigMessage(subject: string, extraHeaders: string[] = [], bytes = 7_500_000): Buffer {
  const attachment = randomBytes(bytes).toString("base64").replace(/.{76}/g, "$&\r\n");
  const head = [
    ...extraHeaders,
    "From: Stranger <stranger@sender.example>",
    "To: support@in.example.com",
    `Subject: ${subject}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: <${subject}@sender.example>`,
    "MIME-Version: 1.0",
    'Content-Type: multipart/mixed; boundary="b"',
  ].join("\r\n");
  const body = `--b\r\nContent-Type: text/plain\r\n\r\nSee the attachment.\r\n--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="a.bin"\r\nContent-Transfer-Encoding: base64\r\n\r\n${attachment}\r\n--b--\r\n`;
  return Buffer.from(`${head}\r\n\r\n${body}`);
}

function dkimFields(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=sender.example; s=s; h=from; l=${9_000_000 + i}; bh=AAAA; b=AAAA`);
}

async function main() {
  const posts: { subject: string; at: number; recipients: number }[] = [];
  const receiver = await startPostReceiver((json, at) => {
    const p = json as { Subject?: unknown; OriginalRecipients?: unknown[] } | undefined;
    if (typeof p?.Subject === "string") posts.push({ subject: p.Subject, at, recipients: Array.isArray(p.OriginalRecipients) ? p.OriginalRecipients.length : 1 });
  });
  const child: ChildProcess = forkServerChild("hostile-server.ts", receiver.url);

  const ask = <T>(type: string, answer: string) =>
    new Promise<T>((resolve) => {
      const on = (msg: { type: string }) => {
        if (msg.type !== answer) return;
        child.off("message", on);
        resolve(msg as T);
      };
      child.on("message", on);
      if (type) child.send({ type });
    });
  const ready = await Promise.race([
    ask<Ready>("", "ready"),
    new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`hostile-server.ts exited with ${code}`)))),
  ]);
  const treeCpuMs = () => processTree(child.pid!).reduce((sum, s) => sum + s.cpuMs + s.childrenCpuMs, 0);
  /** CPU of the tree from `start` until it used under 30 ms in a second (at most `maxS` seconds). */
  const cpuUntilIdle = async (start: number, maxS = 240) => {
    let last = treeCpuMs();
    for (let i = 0; i < maxS; i++) {
      await sleep(1000);
      const now = treeCpuMs();
      if (now - last < 30) return { cpuMs: now - start, idle: true };
      last = now;
    }
    return { cpuMs: treeCpuMs() - start, idle: false };
  };
  const stored = () => ask<{ bytes: number; rows: number }>("stored", "stored");
  const smtp = () => nodemailer.createTransport({ host: ready.host, port: ready.port, secure: false, ignoreTLS: true, socketTimeout: 300_000, greetingTimeout: 30_000 });
  const smtpSend = async (to: string[], raw: Buffer) => {
    const t = smtp();
    const t0 = performance.now();
    try {
      const info = await t.sendMail({ envelope: { from: "stranger@sender.example", to }, raw });
      return { reply: info.response, ms: performance.now() - t0 };
    } catch (err) {
      return { reply: `refused: ${(err as Error).message}`, ms: performance.now() - t0 };
    } finally {
      t.close();
    }
  };
  await sleep(2000); // the start's own work settles
  // Latencies depend on what else the cores do: the load average beside them.
  console.log(`load average at the start ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} (${os.availableParallelism()} cores)`);
  const results: Record<string, unknown> = {};

  if (only.has("recipients")) {
    const raw = bigMessage("hostile-recipients");
    const before = await stored();
    const cpu0 = treeCpuMs();
    const to = Array.from({ length: 100 }, (_, i) => `support+${i + 1}@in.example.com`);
    const sent = await smtpSend(to, raw);
    const cpu = await cpuUntilIdle(cpu0);
    const after = await stored();
    const mine = posts.filter((p) => p.subject === "hostile-recipients");
    results.recipients = {
      messageBytes: raw.length,
      reply: sent.reply,
      replyMs: Math.round(sent.ms),
      storedBytes: after.bytes - before.bytes,
      storedPerMessage: Number(((after.bytes - before.bytes) / raw.length).toFixed(2)),
      rows: after.rows - before.rows,
      posts: mine.length,
      recipientsPosted: mine.reduce((n, p) => n + p.recipients, 0),
      cpuMs: Math.round(cpu.cpuMs),
      idle: cpu.idle,
    };
    console.log("recipients", JSON.stringify(results.recipients));
  }

  if (only.has("signatures")) {
    const raw = bigMessage("hostile-signatures", dkimFields(1980), 7_300_000);
    const ordinary = Buffer.from(
      `From: Friend <friend@sender.example>\r\nTo: help@other.example.com\r\nSubject: ordinary\r\nMessage-ID: <ordinary@sender.example>\r\nDate: ${new Date().toUTCString()}\r\n\r\nHello.\r\n`,
    );
    const cpu0 = treeCpuMs();
    const hostile = smtpSend(["support@in.example.com"], raw);
    await sleep(1000);
    const t0 = performance.now();
    const ordinarySent = await smtpSend(["help@other.example.com"], ordinary);
    let ordinaryPostedMs: number | undefined;
    for (let i = 0; i < 600 && ordinaryPostedMs === undefined; i++) {
      const p = posts.find((x) => x.subject === "ordinary");
      if (p) ordinaryPostedMs = p.at - t0;
      else await sleep(100);
    }
    const sent = await hostile;
    const cpu = await cpuUntilIdle(cpu0);
    results.signatures = {
      messageBytes: raw.length,
      reply: sent.reply,
      replyMs: Math.round(sent.ms),
      posted: posts.some((p) => p.subject === "hostile-signatures"),
      ordinaryReply: ordinarySent.reply,
      ordinaryPostedMs: ordinaryPostedMs === undefined ? "not within 60 s" : Math.round(ordinaryPostedMs),
      cpuMs: Math.round(cpu.cpuMs),
      idle: cpu.idle,
    };
    console.log("signatures", JSON.stringify(results.signatures));
    // The most signatures accepted (50, each its own l=): stored and posted, at most 10 of them verified.
    const most = bigMessage("hostile-signatures-50", dkimFields(50), 7_300_000);
    const mostCpu0 = treeCpuMs();
    const mostSent = await smtpSend(["support@in.example.com"], most);
    const mostCpu = await cpuUntilIdle(mostCpu0);
    results.signatures50 = {
      messageBytes: most.length,
      reply: mostSent.reply,
      posted: posts.some((p) => p.subject === "hostile-signatures-50"),
      cpuMs: Math.round(mostCpu.cpuMs),
      idle: mostCpu.idle,
    };
    console.log("signatures (50, accepted)", JSON.stringify(results.signatures50));
  }

  if (only.has("renders")) {
    // Each tenant its own keep-alive agent: the other's requests never wait in the attacker's line of connections here.
    const agents = new Map<string, http.Agent>();
    const post = (key: string, body: unknown) =>
      new Promise<{ status: number; ms: number }>((resolve, reject) => {
        const agent = agents.get(key) ?? new http.Agent({ keepAlive: true });
        agents.set(key, agent);
        const data = Buffer.from(JSON.stringify(body));
        const t0 = performance.now();
        const req = http.request(`${ready.api}/api/v1/email`, { method: "POST", agent, headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": data.length } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            if (res.statusCode !== 200 && process.env.BENCH_DEBUG) console.log(res.statusCode, Buffer.concat(chunks).toString("utf8").slice(0, 300));
            resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 });
          });
        });
        req.on("error", reject);
        req.end(data);
      });
    const model = { l: Array.from({ length: 30 }, (_, i) => i) };
    const hostileBody = { From: { email: "a@in.example.com" }, To: [{ email: "x@in.example.com" }], TemplateID: ready.templateId, TemplateModel: model };
    const plain = (i: number) => ({ From: { email: "b@other.example.com" }, To: [{ email: `r${i}@other.example.com` }], Subject: "Receipt", ContentType: "Text", PlainContent: "Thank you." });
    for (let i = 0; i < 5; i++) await post(ready.otherKey, plain(i)); // warm
    // The process's first render loads the render workers' modules: one render first (BENCH_COLD=1 leaves it out).
    if (!process.env.BENCH_COLD) await post(ready.attackerKey, hostileBody);
    /** 100 requests of `body` at once with the attacker's key while the other tenant sends 50 a second (open loop), at least 2 s. */
    const burst = async (body: unknown, from: number) => {
      await ask("loop-reset", "loop-reset");
      const cpu0 = treeCpuMs();
      const burstResults = Promise.all(Array.from({ length: 100 }, () => post(ready.attackerKey, body)));
      let done = false;
      void burstResults.then(() => (done = true));
      const other: Promise<{ status: number; ms: number }>[] = [];
      const started = performance.now();
      for (let i = 0; !done || performance.now() - started < 2000; i++) {
        other.push(post(ready.otherKey, plain(from + i)));
        await sleep(20);
        if (performance.now() - started > 120_000) break;
      }
      const mine = await burstResults;
      const otherResults = await Promise.all(other);
      const loop = await ask<{ p99Ms: number; maxMs: number }>("loop", "loop");
      const cpu = await cpuUntilIdle(cpu0);
      const lat = otherResults.map((r) => r.ms).sort((a, b) => a - b);
      if (process.env.BENCH_DEBUG) console.log(otherResults.map((r) => Math.round(r.ms)).join(" "));
      const statuses: Record<number, number> = {};
      for (const r of mine) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      return {
        burstStatuses: statuses,
        burstSeconds: Number((Math.max(...mine.map((r) => r.ms)) / 1000).toFixed(1)),
        otherSends: otherResults.length,
        otherFailed: otherResults.filter((r) => r.status !== 200).length,
        otherStatuses: [...new Set(otherResults.map((r) => r.status))].sort(),
        otherP50: Math.round(percentile(lat, 50)),
        otherP99: Math.round(percentile(lat, 99)),
        otherMax: Math.round(lat[lat.length - 1] ?? NaN),
        loopDelayP99: Math.round(loop.p99Ms),
        loopDelayMax: Math.round(loop.maxMs),
        cpuMs: Math.round(cpu.cpuMs),
        idle: cpu.idle,
      };
    };
    // The control: the same burst of ordinary sends (what any 100 requests at once cost the other tenant here).
    results.plainBurst = await burst({ From: { email: "a@in.example.com" }, To: [{ email: "x@in.example.com" }], Subject: "Hi", ContentType: "Text", PlainContent: "Hello." }, 10_000);
    console.log("plain burst (control)", JSON.stringify(results.plainBurst));
    results.renders = await burst(hostileBody, 20_000);
    console.log("renders", JSON.stringify(results.renders));
  }

  console.log(`load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  if (process.env.BENCH_JSON) console.log(JSON.stringify(results));
  await stopServerChild(child);
  receiver.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
