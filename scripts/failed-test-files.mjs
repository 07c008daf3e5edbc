// Prints the test files that failed in a vitest JSON report, relative to the
// working directory, for scripts/test-all.sh to run them once more. Exits 1
// (prints nothing) when there is nothing to rerun fairly: no report (the run
// itself broke), no failed file (something else failed), or more than
// MAX_RERUN files (a breakage, not a flake).
import fs from "node:fs";
import path from "node:path";

const MAX_RERUN = 5;
const [reportFile] = process.argv.slice(2);
let report;
try {
  report = JSON.parse(fs.readFileSync(reportFile, "utf8"));
} catch {
  process.exit(1);
}
const failed = (report.testResults ?? []).filter((r) => r.status === "failed").map((r) => path.relative(process.cwd(), r.name));
if (failed.length === 0 || failed.length > MAX_RERUN) process.exit(1);
console.log(failed.join(" "));
