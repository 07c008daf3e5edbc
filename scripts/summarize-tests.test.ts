import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const script = path.resolve(import.meta.dirname, "summarize-tests.mjs");
const dirs: string[] = [];

/** A results directory as scripts/test-all.sh leaves it: one vitest report, and the timings if given. */
function resultsDir(timings?: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "summarize-tests-"));
  dirs.push(dir);
  const report = {
    numPassedTests: 2,
    testResults: [
      {
        name: path.join(dir, "a.test.ts"),
        status: "failed",
        assertionResults: [{ status: "passed" }, { status: "passed" }, { status: "failed" }],
      },
    ],
  };
  fs.writeFileSync(path.join(dir, "unit.json"), JSON.stringify(report));
  if (timings !== undefined) fs.writeFileSync(path.join(dir, "timings"), timings);
  return dir;
}

function summarize(dir: string) {
  const run = spawnSync(process.execPath, [script, dir], { encoding: "utf8" });
  return { status: run.status, lines: run.stdout.trimEnd().split("\n") };
}

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("scripts/summarize-tests.mjs", () => {
  it("prints each pass's wall time, skipped ones and their sum before the closing line, which stays last; none without timings", () => {
    const dir = resultsDir("41\tunit\n1082\tintegration (embedded PostgreSQL)\n-\tend-to-end (Chromium)\n");
    const { status, lines } = summarize(dir);
    expect(status).toBe(1);
    expect(lines.at(-1)).toBe("tests: 2 passed, 1 failed");
    const table = lines.slice(lines.indexOf("time of each pass:") + 1, -2);
    expect(table.map((line) => line.trim().split(/\s{2,}/))).toEqual([
      ["unit", "41s"],
      ["integration (embedded PostgreSQL)", "18m 02s"],
      ["end-to-end (Chromium)", "skipped"],
      ["all passes", "18m 43s"],
    ]);

    // A report summed up by hand, without timings: no table.
    const untimed = summarize(resultsDir()).lines;
    expect(untimed).not.toContain("time of each pass:");
    expect(untimed.at(-1)).toBe("tests: 2 passed, 1 failed");
  });
});
