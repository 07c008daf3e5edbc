/**
 * The reference run of `npm run bench:e2e -- --against postfix` (bench/e2e.ts,
 * docs/BENCHMARKS.md): Debian's Postfix with its default settings, relaying
 * to Postfix's own `smtp-sink` on loopback, fed 2 KB messages by
 * `smtp-source` on 16 connections. Nothing is installed here: where the
 * binaries are missing the caller is told so and stops.
 *
 * Each run is a Postfix instance of its own: a temporary config_directory
 * (main.cf with only what makes it a private loopback relay; Debian's
 * master.cf with the smtpd service moved to a free loopback port and chroot
 * off, as a temporary queue directory holds none of the files a chroot needs),
 * queue_directory and data_directory, started with `postfix -c` and stopped
 * the same way. The system's Postfix (port 25) is never touched.
 *
 * With `dkim`, OpenDKIM signs every message as Postfix's milter
 * (bench/opendkim-milter.ts), and one message of the round is checked to
 * have reached the sink signed.
 *
 * CPU is /proc utime+stime: the master's tree (the master and the services it
 * forked, those that exited counted through the master's cutime+cstime), the
 * sink, and smtp-source (through this process's cutime+cstime, which grows
 * when the exited smtp-source is reaped).
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { isAlive, processTree, readStat } from "../test/support/proc-stats";
import { freePort } from "../lib/storage/embedded";
import { untilListening } from "./until-listening";
import { opendkimMissing, startOpendkim, type Milter } from "./opendkim-milter";
import { startSystemCounter, type SystemCounts } from "./work-counts";

const run = promisify(execFile);

const BINARIES = { postfix: "/usr/sbin/postfix", smtpSource: "/usr/sbin/smtp-source", smtpSink: "/usr/sbin/smtp-sink" };
const MASTER_CF = "/etc/postfix/master.cf";

export interface PostfixRoundOptions {
  messages: number;
  connections: number;
  /** smtp-source's payload (`-l`), bytes, headers not included. */
  payloadBytes: number;
  /** Messages sent and drained first, not counted. */
  warmupMessages: number;
  /** Every message signed by OpenDKIM as a milter (RSA-2048, relaxed/simple). */
  dkim?: boolean;
}

export interface PostfixFigures {
  delivered: number;
  /** smtp-source's first connection → the sink's last message. */
  seconds: number;
  deliveredPerSecond: number;
  /** smtp-source's first connection → its exit (every message queued by Postfix). */
  acceptedPerSecond: number;
  cpuMsPerMessage: { postfix: number; opendkim: number; smtpSource: number; smtpSink: number; total: number };
  connections: number;
  dkim: boolean;
  /** The whole machine's system calls, context switches and page faults over the round (bench/work-counts.ts). */
  work: SystemCounts | { unavailable: string };
  /** Page faults per message of Postfix's tree (its exited services' through the master) and OpenDKIM. */
  pageFaultsPerMessage: { postfix: number; opendkim: number };
}

/** Why the reference cannot run here, or undefined when it can. */
export function postfixMissing(dkim = false): string | undefined {
  const missing = [...Object.values(BINARIES), MASTER_CF].filter((f) => !existsSync(f));
  if (missing.length) return `Postfix is not installed (missing ${missing.join(", ")}); on Debian: apt-get install postfix`;
  if (dkim && opendkimMissing()) return opendkimMissing();
  if (process.getuid?.() !== 0) return "Postfix's master must be started as root: run the benchmark as root";
  return undefined;
}

/** Debian's master.cf with the public smtpd service on `port` of loopback and every service unchrooted. */
function masterCf(port: number): string {
  return readFileSync(MASTER_CF, "utf8")
    .split("\n")
    .map((line) => {
      const m = /^(\S+)(\s+)(inet|unix|unix-dgram|fifo|pass)(\s+\S+\s+\S+\s+)(\S+)(.*)$/.exec(line);
      if (!m) return line;
      const name = m[1] === "smtp" && m[3] === "inet" ? `127.0.0.1:${port}` : m[1];
      return `${name}${m[2]}${m[3]}${m[4]}${m[5] === "y" ? "n" : m[5]}${m[6]}`;
    })
    .join("\n");
}

/** The counting sink: `smtp-sink -c` rewrites a counter line ("… mesg=N") after each message. */
function startSink(port: number, dump?: string): { proc: ChildProcess; messages: () => number; until: (n: number) => Promise<number> } {
  const proc = spawn(BINARIES.smtpSink, ["-c", "-u", "postfix", ...(dump ? ["-d", dump] : []), `127.0.0.1:${port}`, "256"], { stdio: ["ignore", "pipe", "inherit"] });
  let count = 0;
  let waiting: { n: number; resolve: (at: number) => void } | undefined;
  let tail = "";
  proc.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    tail = (tail + chunk).slice(-200);
    const all = [...tail.matchAll(/mesg=(\d+)/g)];
    if (all.length) count = Number(all.at(-1)![1]);
    if (waiting && count >= waiting.n) {
      waiting.resolve(Date.now());
      waiting = undefined;
    }
  });
  return {
    proc,
    messages: () => count,
    until: (n) => (count >= n ? Promise.resolve(Date.now()) : new Promise((resolve) => (waiting = { n, resolve }))),
  };
}

function smtpSource(port: number, messages: number, o: PostfixRoundOptions): Promise<number> {
  const args = ["-s", String(o.connections), "-l", String(o.payloadBytes), "-m", String(messages), "-f", "news@bench.example", "-t", "user@dest.example", `127.0.0.1:${port}`];
  return new Promise((resolve, reject) => {
    const p = spawn(BINARIES.smtpSource, args, { stdio: ["ignore", "ignore", "inherit"] });
    p.once("error", reject);
    p.once("exit", (code) => (code === 0 ? resolve(Date.now()) : reject(new Error(`smtp-source exited with ${code}`))));
  });
}

const treeCpuMs = (pid: number) => processTree(pid).reduce((s, p) => s + p.cpuMs + p.childrenCpuMs, 0);
const treeFaults = (pid: number) => processTree(pid).reduce((s, p) => s + p.faults + p.childrenFaults, 0);
const reapedChildrenCpuMs = () => readStat(process.pid)?.childrenCpuMs ?? 0;

/** `postfix stop`, then until the master has exited (its services with it), so that the directory can go. */
async function stopPostfix(etc: string, masterPid: number): Promise<void> {
  await run(BINARIES.postfix, ["-c", etc, "stop"]).catch(() => {});
  for (let i = 0; i < 100 && isAlive(masterPid); i++) await new Promise((r) => setTimeout(r, 100));
}

/** One Postfix run, from an empty temporary instance to its stop. */
export async function runPostfixRound(o: PostfixRoundOptions): Promise<PostfixFigures> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mailroom-bench-postfix-"));
  // Postfix's services run as its mail_owner: they must reach the queue and own the data directory.
  chmodSync(dir, 0o755);
  const etc = path.join(dir, "etc");
  const spool = path.join(dir, "spool");
  const data = path.join(dir, "data");
  for (const d of [etc, spool, data]) mkdirSync(d);
  const { stdout: uid } = await run("id", ["-u", "postfix"]);
  chownSync(data, Number(uid.trim()), -1);
  const [smtpdPort, sinkPort, checkPort] = [await freePort(), await freePort(), await freePort()];
  let milter: Milter | undefined;
  if (o.dkim) {
    try {
      milter = await startOpendkim();
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }
  writeFileSync(
    path.join(etc, "main.cf"),
    [
      "compatibility_level = 3.6",
      `queue_directory = ${spool}`,
      `data_directory = ${data}`,
      "myhostname = postfix-reference.localdomain",
      // A relay for loopback clients only; no local delivery.
      "mydestination =",
      "inet_interfaces = 127.0.0.1",
      "inet_protocols = ipv4",
      "mynetworks = 127.0.0.0/8",
      // With DKIM the warm-up goes to a sink that keeps what it gets, so that the signatures are checked.
      `relayhost = [127.0.0.1]:${o.dkim ? checkPort : sinkPort}`,
      ...(o.dkim ? [`smtpd_milters = ${milter!.socket}`, "non_smtpd_milters = $smtpd_milters", "milter_default_action = tempfail"] : []),
      "",
    ].join("\n"),
  );
  writeFileSync(path.join(etc, "master.cf"), masterCf(smtpdPort));
  // smtp-sink runs as postfix: its dump (a file per message, named from the template) goes to a directory postfix owns.
  const dumpDir = path.join(dir, "sink-dump");
  mkdirSync(dumpDir);
  chownSync(dumpDir, Number(uid.trim()), -1);
  const dump = path.join(dumpDir, "message");
  const sink = startSink(sinkPort);
  const check = o.dkim ? startSink(checkPort, dump) : undefined;
  let masterPid: number | undefined;
  try {
    await run(BINARIES.postfix, ["-c", etc, "start"]);
    masterPid = Number(readFileSync(path.join(spool, "pid", "master.pid"), "utf8").trim());
    await untilListening(smtpdPort, 10_000, "Postfix's smtpd");

    if (o.warmupMessages > 0 || check) {
      await smtpSource(smtpdPort, Math.max(1, o.warmupMessages), o);
      await (check ?? sink).until(Math.max(1, o.warmupMessages));
    }
    if (check) {
      const received = readdirSync(dumpDir).map((f) => readFileSync(path.join(dumpDir, f), "utf8")).join("\n");
      if (!/DKIM-Signature:\s*v=1;\s*a=rsa-sha256;\s*c=relaxed\/simple;\s*d=bench\.example;/.test(received)) {
        throw new Error(`Postfix + OpenDKIM: the warm-up reached the sink unsigned: ${received.slice(0, 400)}`);
      }
      // The measured round goes to the counting sink, which keeps nothing.
      await run("postconf", ["-c", etc, "-e", `relayhost = [127.0.0.1]:${sinkPort}`]);
      await run(BINARIES.postfix, ["-c", etc, "reload"]);
      await new Promise((r) => setTimeout(r, 1000));
    }
    const base = sink.messages();
    const master = masterPid;
    const cpu0 = { postfix: treeCpuMs(master), milter: milter?.cpuMs() ?? 0, source: reapedChildrenCpuMs(), sink: readStat(sink.proc.pid!)?.cpuMs ?? NaN };
    const faults0 = { postfix: treeFaults(master), milter: milter?.faults() ?? 0 };
    const counter = startSystemCounter();
    const t0 = Date.now();
    const delivered = sink.until(base + o.messages);
    const sourceDone = await smtpSource(smtpdPort, o.messages, o);
    const source = reapedChildrenCpuMs() - cpu0.source;
    const t1 = await delivered;
    const work = await counter.stop();
    const faults = { postfix: treeFaults(master) - faults0.postfix, opendkim: (milter?.faults() ?? 0) - faults0.milter };
    const cpu = {
      postfix: treeCpuMs(master) - cpu0.postfix,
      opendkim: (milter?.cpuMs() ?? 0) - cpu0.milter,
      smtpSource: source,
      smtpSink: (readStat(sink.proc.pid!)?.cpuMs ?? NaN) - cpu0.sink,
    };
    const per = (v: number) => v / o.messages;
    const seconds = (t1 - t0) / 1000;
    return {
      delivered: o.messages,
      seconds,
      deliveredPerSecond: o.messages / seconds,
      acceptedPerSecond: o.messages / ((sourceDone - t0) / 1000),
      cpuMsPerMessage: {
        postfix: per(cpu.postfix),
        opendkim: per(cpu.opendkim),
        smtpSource: per(cpu.smtpSource),
        smtpSink: per(cpu.smtpSink),
        total: per(cpu.postfix + cpu.opendkim + cpu.smtpSource + cpu.smtpSink),
      },
      connections: o.connections,
      dkim: o.dkim === true,
      work,
      pageFaultsPerMessage: { postfix: per(faults.postfix), opendkim: per(faults.opendkim) },
    };
  } finally {
    if (masterPid !== undefined) await stopPostfix(etc, masterPid);
    sink.proc.kill("SIGTERM");
    check?.proc.kill("SIGTERM");
    milter?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
