// node bench/long-tasks.mjs PROFILE.cpuprofile [TURNS.json]: what ran in each long turn of the event loop
// that bench/stall-profile.ts noted (TURNS.json, default /tmp/mailroom-long-turns.json), from a V8 CPU
// profile of the same run (node --cpu-prof): per turn, the functions that took most of its samples,
// each with the innermost project frame and library frame above it.
import { readFileSync } from "node:fs";

const [file, turnsFile = "/tmp/mailroom-long-turns.json"] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, "utf8"));
const turns = JSON.parse(readFileSync(turnsFile, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const short = (url) => url.replace(/^.*\/node_modules\//, "").replace(/^file:\/\/.*?\/(lib|server|bench)/, "$1");
const label = (n) => `${n.callFrame.functionName || "(anon)"} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
function owner(id) {
  const frames = [];
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) frames.push(byId.get(cur));
  const own = frames.find((f) => /\/(lib|server)[/.]/.test(f.callFrame.url) && !/node_modules/.test(f.callFrame.url));
  const lib = frames.find((f) => /node_modules/.test(f.callFrame.url));
  return `${label(frames[0])}  <- ${own ? label(own) : "-"}${lib ? `  [${label(lib)}]` : ""}`;
}
const times = [];
let t = profile.startTime;
for (const d of profile.timeDeltas) times.push((t += d));
for (const turn of turns) {
  const by = new Map();
  let n = 0;
  profile.samples.forEach((id, i) => {
    if (times[i] < turn.start || times[i] > turn.end) return;
    const key = owner(id);
    const dt = (times[i + 1] ?? times[i]) - times[i];
    by.set(key, (by.get(key) ?? 0) + dt);
    n++;
  });
  console.log(`\n${((turn.end - turn.start) / 1000).toFixed(0)} ms turn during ${turn.shape} (${n} samples)`);
  for (const [k, us] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 7)) console.log(`  ${(us / 1000).toFixed(1).padStart(7)} ms  ${k}`);
}
