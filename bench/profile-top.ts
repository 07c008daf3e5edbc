/**
 * `npx tsx bench/profile-top.ts <file.cpuprofile> [--top N] [--callers <name>] [--within <name>]`: the hot spots
 * of a V8 CPU profile (`node --cpu-prof`), without a browser.
 *
 * Prints the top N (default 25) functions by self time and by inclusive
 * ("total") time, then the same per file and per package. Inclusive time
 * counts a sample once per distinct function on its stack, so recursion is
 * not counted twice. Percentages are of the busy time: (idle) is left out
 * of the denominator and shown on its own line.
 */
import { readFileSync } from "node:fs";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith("--"));
const topIndex = args.indexOf("--top");
const TOP = topIndex >= 0 ? Number(args[topIndex + 1]) : 25;
if (!file) {
  console.error("usage: tsx bench/profile-top.ts <file.cpuprofile> [--top N]");
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;

const ROOT = new URL("..", import.meta.url).pathname;
const shortUrl = (url: string) => url.replace(/^file:\/\//, "").replace(ROOT, "").replace(/^.*node_modules\//, "~/");
/** node_modules/<pkg> (scoped too), node:<builtin>, or the project folder (lib/delivery...). */
function packageOf(url: string): string {
  if (!url) return "(native/V8)";
  if (url.startsWith("node:")) return "node:" + url.slice(5).split("/")[0];
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const parts = url.slice(nm + 13).split("/");
    return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const local = shortUrl(url).split("/");
  return local.length > 2 ? local.slice(0, 2).join("/") : local[0]!;
}
const fnKey = (f: CallFrame) =>
  f.url ? `${f.functionName || "(anonymous)"} ${shortUrl(f.url)}:${f.lineNumber + 1}` : f.functionName || "(anonymous)";
const fileKey = (f: CallFrame) => (f.url ? shortUrl(f.url) : f.functionName.startsWith("(") ? f.functionName : "(native/V8)");
const pkgKey = (f: CallFrame) => (f.url ? packageOf(f.url) : f.functionName.startsWith("(") ? f.functionName : "(native/V8)");

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Time (µs) per node: each sample lasts until the next one (timeDeltas[i + 1]).
const nodeTime = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i + 1] ?? 0;
  nodeTime.set(profile.samples[i]!, (nodeTime.get(profile.samples[i]!) ?? 0) + dt);
}

function aggregate(key: (f: CallFrame) => string) {
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  for (const [id, us] of nodeTime) {
    const leaf = byId.get(id)!;
    const k = key(leaf.callFrame);
    self.set(k, (self.get(k) ?? 0) + us);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)!.callFrame;
      if (frame.functionName === "(root)") continue;
      const kk = key(frame);
      if (seen.has(kk)) continue;
      seen.add(kk);
      total.set(kk, (total.get(kk) ?? 0) + us);
    }
  }
  return { self, total };
}

const all = [...nodeTime.values()].reduce((a, b) => a + b, 0);
const idle = [...nodeTime].filter(([id]) => byId.get(id)!.callFrame.functionName === "(idle)").reduce((a, [, us]) => a + us, 0);
const busy = all - idle;
const ms = (us: number) => (us / 1000).toFixed(0).padStart(7);
const pct = (us: number) => ((100 * us) / busy).toFixed(1).padStart(5);

function print(title: string, m: Map<string, number>) {
  console.log(`\n${title}`);
  console.log(`${"ms".padStart(7)} ${"%".padStart(5)}  name`);
  const rows = [...m].filter(([k]) => k !== "(idle)").sort((a, b) => b[1] - a[1]).slice(0, TOP);
  for (const [k, us] of rows) console.log(`${ms(us)} ${pct(us)}  ${k}`);
}

console.log(`${file}: ${(all / 1e6).toFixed(2)} s sampled, ${(busy / 1e6).toFixed(2)} s busy (${(idle / 1e6).toFixed(2)} s idle); % of busy`);
const fns = aggregate(fnKey);
print(`Top ${TOP} functions by self time`, fns.self);
print(`Top ${TOP} functions by total (inclusive) time`, fns.total);
const files = aggregate(fileKey);
print(`Top ${TOP} files by self time`, files.self);
print(`Top ${TOP} files by total time`, files.total);
const pkgs = aggregate(pkgKey);
print(`Top ${TOP} packages/folders by self time`, pkgs.self);
print(`Top ${TOP} packages/folders by total time`, pkgs.total);

// --callers <name>: the heaviest call paths (DEPTH=8 frames up) into functions whose name contains <name>.
const callersIndex = args.indexOf("--callers");
if (callersIndex >= 0) {
  const wanted = args[callersIndex + 1]!;
  const paths = new Map<string, number>();
  for (const [id, us] of nodeTime) {
    const chain: string[] = [];
    let hit = false;
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)!.callFrame;
      if (!hit && frame.functionName.includes(wanted)) hit = true;
      if (hit) chain.push(fnKey(frame));
      if (chain.length >= Number(process.env.DEPTH ?? 8)) break;
    }
    if (hit) paths.set(chain.join("\n          <- "), (paths.get(chain.join("\n          <- ")) ?? 0) + us);
  }
  print(`Heaviest call paths into *${wanted}*`, paths);
}

// --within <name>: the time spent under functions named exactly <name>, by the package of the leaf frame
// (e.g. `--within enqueueMany`: how much of the typed enqueue is zod's parse, pg-boss, pg).
const withinIndex = args.indexOf("--within");
if (withinIndex >= 0) {
  const wanted = args[withinIndex + 1]!;
  const byPackage = new Map<string, number>();
  let under = 0;
  for (const [id, us] of nodeTime) {
    let hit = false;
    for (let cur: number | undefined = id; cur !== undefined && !hit; cur = parent.get(cur)) hit = byId.get(cur)!.callFrame.functionName === wanted;
    if (!hit) continue;
    under += us;
    const k = pkgKey(byId.get(id)!.callFrame);
    byPackage.set(k, (byPackage.get(k) ?? 0) + us);
  }
  console.log(`\n${wanted}: ${ms(under).trim()} ms inclusive (${pct(under).trim()}% of busy)`);
  print(`Under ${wanted}, by the leaf frame's package`, byPackage);
}
