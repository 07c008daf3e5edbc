import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time and memory of a process tree from Linux /proc, for the benchmarks
 * and fault tests that run real processes (test/support/topology.ts).
 */

/** USER_HZ: the unit of utime/stime in /proc/<pid>/stat (`getconf CLK_TCK`, 100 on Linux). */
const TICKS_PER_SECOND = 100;

export interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  comm: string;
  state: string;
  /** utime + stime of the process itself, ms. */
  cpuMs: number;
  /** cutime + cstime: CPU of its children that exited and were waited for, ms. */
  childrenCpuMs: number;
  /** Start time in clock ticks since boot: with the pid, names one process (pids are reused). */
  startTicks: number;
  /** Page faults (minor + major) of the process, all its threads. */
  faults: number;
  /** Page faults of its children that exited and were waited for. */
  childrenFaults: number;
}

export function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined; // gone
  }
  // comm may contain spaces and parentheses: it ends at the last ")".
  const close = text.lastIndexOf(")");
  const f = text.slice(close + 2).split(" ");
  const ms = (ticks: string | undefined) => (Number(ticks) * 1000) / TICKS_PER_SECOND;
  return {
    pid,
    comm: text.slice(text.indexOf("(") + 1, close),
    state: f[0]!,
    ppid: Number(f[1]),
    pgrp: Number(f[2]),
    cpuMs: ms(f[11]) + ms(f[12]),
    childrenCpuMs: ms(f[13]) + ms(f[14]),
    startTicks: Number(f[19]),
    faults: Number(f[7]) + Number(f[9]),
    childrenFaults: Number(f[8]) + Number(f[10]),
  };
}

function allPids(): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
}

/** `root` and every live (non-zombie) descendant. */
export function processTree(root: number): ProcStat[] {
  const stats = allPids()
    .map(readStat)
    .filter((s): s is ProcStat => s !== undefined && s.state !== "Z");
  const byParent = new Map<number, ProcStat[]>();
  for (const s of stats) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), s]);
  const rootStat = stats.find((s) => s.pid === root);
  if (!rootStat) return [];
  const out = [rootStat];
  for (let i = 0; i < out.length; i++) out.push(...(byParent.get(out[i]!.pid) ?? []));
  return out;
}

/** Processes of a process group, zombies included (they hold their pid until reaped). */
export function processGroup(pgrp: number): ProcStat[] {
  return allPids()
    .map(readStat)
    .filter((s): s is ProcStat => s !== undefined && s.pgrp === pgrp);
}

/** Whether the process `s` named still exists (a zombie included), not another one that got its pid since. */
export function stillThere(s: ProcStat): boolean {
  return readStat(s.pid)?.startTicks === s.startTicks;
}

/** Whether a process exists and is not a zombie (a zombie postmaster would look alive to kill(pid, 0)). */
export function isAlive(pid: number): boolean {
  const s = readStat(pid);
  return s !== undefined && s.state !== "Z";
}

function statusKb(pid: number, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Resident set size, kB (counts shared pages in every process that maps them). */
export function rssKb(pid: number): number {
  return statusKb(pid, "VmRSS");
}

/** Proportional set size, kB: shared pages divided among the processes sharing them, so a sum over processes adds up. */
export function pssKb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}
