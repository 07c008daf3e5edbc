import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";

/** The committed lock file installs with `npm ci`, on the Node version package.json states. */
const root = path.resolve(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string; optional?: boolean; engines?: { node?: string } }>;
};

describe("install", () => {
  it("every package that installs supports the stated minimum Node (no EBADENGINE warning)", () => {
    const minimum = semver.minVersion(pkg.engines.node)!.version;
    expect(minimum).toBe("20.19.0");
    const unsupported = Object.entries(lock.packages)
      .filter(([key, e]) => key !== "" && !e.optional && e.engines?.node && !semver.satisfies(minimum, e.engines.node))
      .map(([key, e]) => `${key}@${e.version} wants node ${e.engines!.node}`);
    expect(unsupported).toEqual([]);
  });

  it("the lock holds every optional dependency, so `npm ci` finds it in sync (npm run lock)", () => {
    // --check reads the lock only; it exits non-zero and names what is missing.
    const out = execFileSync("node", ["scripts/lock.mjs", "--check"], { cwd: root, encoding: "utf8" });
    expect(out.trim()).toBe("lock: complete");
  });
});
