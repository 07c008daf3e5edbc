// Adds up the JSON reports of vitest and Playwright into one closing line.
import fs from "node:fs";
import path from "node:path";

const dir = process.argv[2] ?? ".test-results";
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
  if (!file.endsWith(".json")) continue;
  const report = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));
  if ("numPassedTests" in report) {
    // vitest (jest-compatible JSON); a file that failed to load counts as a failure
    passed += report.numPassedTests;
    failed += report.numFailedTests + (report.testResults ?? []).filter((r) => r.status === "failed" && !r.assertionResults?.length).length;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  } else if (report.stats) {
    // Playwright
    passed += report.stats.expected ?? 0;
    failed += (report.stats.unexpected ?? 0) + (report.stats.flaky ?? 0);
    skipped += report.stats.skipped ?? 0;
  }
}
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
