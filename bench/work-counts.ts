/**
 * Work that does not depend on the machine, per delivered message, for
 * bench:e2e's Mailroom rounds and its Postfix references (issue: "counts
 * travel between machines when times do not"): system calls, context
 * switches and page faults of the whole machine while a round runs, through
 * `perf stat -a` (Debian's linux-perf; the `raw_syscalls:sys_enter`
 * tracepoint), so that processes Postfix forks and reaps are counted as
 * Mailroom's are. The benchmark runs on a quiet machine; what else runs is
 * counted too, and the idle line printed before the rounds says how much.
 * Where perf cannot run (not installed, not root, no tracepoints), the reason
 * is printed instead.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";

export interface SystemCounts {
  syscalls: number;
  contextSwitches: number;
  pageFaults: number;
}

export interface SystemCounter {
  /** The counts since the start, or why there are none. */
  stop(): Promise<SystemCounts | { unavailable: string }>;
}

const EVENTS = ["raw_syscalls:sys_enter", "context-switches", "page-faults"] as const;

let probed: string | undefined | null = null;
/** Why perf cannot count here (undefined: it can); asked once. */
export function perfUnavailable(): string | undefined {
  if (probed !== null) return probed;
  const r = spawnSync("perf", ["stat", "-a", "-x", ",", "-e", EVENTS.join(","), "--", "true"], { encoding: "utf8" });
  if (r.error) probed = `perf is not installed (${r.error.message}); on Debian: apt-get install linux-perf`;
  else if (r.status !== 0 || !/raw_syscalls:sys_enter/.test(r.stderr) || /not supported|<not counted>/.test(r.stderr)) probed = `perf cannot count ${EVENTS.join(", ")} here: ${r.stderr.trim().split("\n").slice(-2).join(" ").slice(0, 300)}`;
  else probed = undefined;
  return probed;
}

/** `perf stat -x,` lines: value,unit,event,… */
export function parsePerfCsv(text: string): SystemCounts | undefined {
  const values = new Map<string, number>();
  for (const line of text.split("\n")) {
    const [value, , event] = line.split(",");
    if (event && value !== undefined && /^\d+$/.test(value)) values.set(event, Number(value));
  }
  const [syscalls, contextSwitches, pageFaults] = EVENTS.map((e) => values.get(e));
  if (syscalls === undefined || contextSwitches === undefined || pageFaults === undefined) return undefined;
  return { syscalls, contextSwitches, pageFaults };
}

export function startSystemCounter(): SystemCounter {
  const why = perfUnavailable();
  if (why) return { stop: async () => ({ unavailable: why }) };
  const proc: ChildProcess = spawn("perf", ["stat", "-a", "-x", ",", "-e", EVENTS.join(",")], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  proc.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  return {
    stop: () =>
      new Promise((resolve) => {
        proc.once("exit", () => resolve(parsePerfCsv(stderr) ?? { unavailable: `perf stat printed no counts: ${stderr.slice(0, 300)}` }));
        proc.kill("SIGINT");
      }),
  };
}

/** Per message, for the printed line. */
export function describeCounts(counts: SystemCounts | { unavailable: string }, messages: number): string {
  if ("unavailable" in counts) return `not counted: ${counts.unavailable}`;
  const per = (n: number) => (n / Math.max(1, messages)).toFixed(1);
  return `${per(counts.syscalls)} system calls, ${per(counts.contextSwitches)} context switches, ${per(counts.pageFaults)} page faults per message (whole machine)`;
}
