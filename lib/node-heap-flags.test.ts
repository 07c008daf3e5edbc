import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NODE_HEAP_FLAGS } from "./node-heap-flags";

const root = path.resolve(import.meta.dirname, "..");

describe("the heap flags of the long-running processes (docs/adr/0047)", () => {
  it("are the flags `npm start` gives the app", () => {
    const start: string = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts.start;
    const words = start.split(/\s+/);
    // `exec node`: npm's shell becomes the app, so a signal npm passes on reaches it (docs/adr/0052).
    expect(words.slice(0, 2)).toEqual(["exec", "node"]);
    expect(words).toContain("--import");
    // Node's flags come before the script: after it they would be the script's arguments.
    const script = words.indexOf("scripts/start.ts");
    expect(script).toBeGreaterThan(0);
    expect(words.slice(1, script).filter((w) => w.startsWith("--max-"))).toEqual([...NODE_HEAP_FLAGS]);
  });

  it("give V8 a young generation larger than its default", () => {
    // Allocates short-lived objects until the young generation has grown, and prints its largest size (two semi-spaces) in MB.
    const script = `const v8 = require("v8"); let max = 0; let keep = [];
      for (let i = 0; i < 2e6; i++) {
        keep.push({ i, s: "x" + i }); if (keep.length > 2e5) keep = [];
        if (i % 10000 === 0) max = Math.max(max, v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size);
      }
      console.log(max / 1048576);`;
    const youngMb = (flags: readonly string[]) => Number(execFileSync(process.execPath, [...flags, "-e", script], { encoding: "utf8" }));
    const semiSpaceMb = Number(NODE_HEAP_FLAGS.find((f) => f.startsWith("--max-semi-space-size="))!.split("=")[1]);
    expect(youngMb(NODE_HEAP_FLAGS)).toBe(2 * semiSpaceMb);
    // V8's own default (16 MB semi-spaces on 64-bit), which the flag doubles.
    expect(youngMb([])).toBeLessThan(2 * semiSpaceMb);
    // Two child processes allocating millions of objects: seconds on a loaded 2-core CI machine, past vitest's 5 s default once.
  }, 30_000);
});
