// Adds up the JSON reports of vitest and Playwright into one closing line.
// A vitest report `<name>.rerun.json` holds the files of `<name>.json` that
// failed and were run once more on a fresh database (scripts/test-all.sh):
// their second run replaces their first, and each file that passed only the
// second time is named, so a flaky test is seen rather than hidden.
// Before that line it prints the wall time of each pass, which test-all.sh
// writes to `<dir>/timings` ("seconds<TAB>pass" a line, "-" when skipped).
// The closing line stays the last one: CI reads it.
import fs from "node:fs";
import path from "node:path";

const dir = process.argv[2] ?? ".test-results";
const read = (file) => JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));
const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".json")) : [];
let passed = 0;
let failed = 0;
let skipped = 0;

/** Counts of one vitest file result; a file that failed to load counts as one failure. */
function countFile(result) {
  const tests = result.assertionResults ?? [];
  if (result.status === "failed" && tests.length === 0) return { passed: 0, failed: 1, skipped: 0 };
  const by = (...states) => tests.filter((t) => states.includes(t.status)).length;
  return { passed: by("passed"), failed: by("failed"), skipped: by("pending", "skipped", "todo") };
}

/** 75 → "1m 15s". */
function duration(seconds) {
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`;
}

/** The passes' wall times as a table, with their sum; nothing when test-all.sh wrote none. */
function printTimings() {
  const file = path.join(dir, "timings");
  if (!fs.existsSync(file)) return;
  const passes = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.includes("\t"))
    .map((line) => {
      const [seconds, label] = line.split("\t");
      return { label, seconds: seconds === "-" ? undefined : Number(seconds) };
    });
  if (passes.length === 0) return;
  const total = passes.reduce((sum, p) => sum + (p.seconds ?? 0), 0);
  const rows = [...passes.map((p) => [p.label, p.seconds === undefined ? "skipped" : duration(p.seconds)]), ["all passes", duration(total)]];
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log("\ntime of each pass:");
  for (const [label, time] of rows) console.log(`  ${label.padEnd(width)}  ${time.padStart(7)}`);
}

for (const file of files) {
  if (file.endsWith(".rerun.json")) continue;
  const report = read(file);
  if ("testResults" in report && "numPassedTests" in report) {
    const rerunFile = file.replace(/\.json$/, ".rerun.json");
    const rerun = files.includes(rerunFile) ? read(rerunFile).testResults ?? [] : [];
    const rerunByName = new Map(rerun.map((r) => [r.name, r]));
    for (const result of report.testResults) {
      const second = rerunByName.get(result.name);
      const counts = countFile(second ?? result);
      passed += counts.passed;
      failed += counts.failed;
      skipped += counts.skipped;
      if (second) {
        const verdict = counts.failed === 0 ? "passed the second time: flaky, fix it" : "failed twice";
        console.log(`rerun (${file}): ${path.relative(process.cwd(), result.name)} ${verdict}`);
      }
    }
  } else if (report.stats) {
    // Playwright
    passed += report.stats.expected ?? 0;
    failed += (report.stats.unexpected ?? 0) + (report.stats.flaky ?? 0);
    skipped += report.stats.skipped ?? 0;
  }
}
printTimings();
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
