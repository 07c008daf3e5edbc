import { describe, expect, it } from "vitest";
import { citationProblems, isScanned, type RepoView } from "./citations";

const repo: RepoView = {
  has: (path) =>
    ["README.md", "docs/contract.md", "docs/api.md", "docs/adr/0110-idempotency-key.md", "docs/screenshots/overview.png", "lib/contract/errors.ts"].includes(path),
  adrs: new Set(["0110"]),
};
const problems = (file: string, text: string) => citationProblems(file, text, repo).map((p) => [p.line, p.text]);

describe("citations outside the repo", () => {
  it("refuses the design notes that lived beside the clone, wherever they are named", () => {
    expect(problems("lib/a.ts", "/** Steps 1–13 of CONTRACT.md. */")).toEqual([[1, "CONTRACT.md"]]);
    expect(problems("lib/a.ts", "x();\n// STACK.md: keep it on globalThis\n// see DESIGN.md \"Dashboard\"")).toEqual([
      [2, "STACK.md"],
      [3, "DESIGN.md"],
    ]);
    expect(problems("docs/a.md", "The spec (`spec/email-api.md`) and ../shared/CONTRACT.md")).toEqual([
      [1, "spec/email-api.md"],
      [1, "../shared/CONTRACT.md"],
    ]);
    expect(problems("test/x.test.ts", 'const c = new URL("../../../shared/CONTRACT.md", import.meta.url);')).toHaveLength(1);
  });

  it("refuses a docs page or an ADR that does not exist, and accepts the ones that do", () => {
    expect(problems("lib/a.ts", "// docs/contract.md §5.3, docs/adr/0110, ADR 0110, README.md")).toEqual([]);
    expect(problems("lib/a.ts", "// docs/stack.md, docs/adr/0999-gone.md")).toEqual([
      [1, "docs/stack.md"],
      [1, "docs/adr/0999-gone.md"],
      [1, "docs/adr/0999"],
    ]);
    expect(problems("lib/a.ts", "// ADR 0042 decided it")).toEqual([[1, "ADR 0042"]]);
    expect(problems("lib/a.ts", "// docs/screenshots/overview.png, docs/screenshots/missing.png")).toEqual([[1, "docs/screenshots/missing.png"]]);
  });

  it("resolves a markdown link relative to the citing page, and a bare name to docs/", () => {
    expect(problems("docs/adr/0110-idempotency-key.md", "[api](../api.md), [readme](../../README.md)")).toEqual([]);
    expect(problems("docs/webhooks.md", "see [the contract](contract.md#9-webhooks)")).toEqual([]);
    expect(problems("docs/webhooks.md", "see [x](../missing.md)")).toEqual([[1, "../missing.md"]]);
    expect(problems("lib/a.ts", "// contract.md §4")).toEqual([]);
  });

  it("ignores URLs, globs and extensions that are not citations", () => {
    expect(problems("lib/a.ts", "// https://github.com/o/r/blob/main/CONTRACT.md#12 and file.endsWith('.md'), docs/*.md")).toEqual([]);
    expect(problems("docs/a.md", "[n](https://example.org/issue/12/DESIGN.md)")).toEqual([]);
  });
});

describe("numbered issues", () => {
  it("refuses the issue word followed by a number, in comments, docs and test names", () => {
    expect(problems("lib/a.ts", "// the stall budget (issue 11)")).toEqual([[1, "issue 11"]]);
    expect(problems("bench/a.ts", " * Issue 7's soak")).toEqual([[1, "Issue 7"]]);
    expect(problems("docs/a.md", "issues 7 and 9, issue #12, ticket 3, PR 4")).toEqual([
      [1, "issues 7"],
      [1, "issue #12"],
      [1, "ticket 3"],
      [1, "PR 4"],
    ]);
    expect(problems("test/a.test.ts", 'describe("membership (Issue 16)", () => {')).toEqual([[1, "Issue 16"]]);
    expect(problems(".ci/run", "# Issue 7's CI-sized soak")).toEqual([[1, "Issue 7"]]);
  });

  it("refuses a hash-number in a comment or in markdown prose", () => {
    expect(problems("lib/a.ts", "// the lease (#15)")).toEqual([[1, "#15"]]);
    expect(problems("lib/a.ts", "f(); // see #7")).toEqual([[1, "#7"]]);
    expect(problems("lib/a.ts", "/*\n * fixed in #1234, and (#123)\n */")).toEqual([
      [2, "#1234"],
      [2, "#123"],
    ]);
    expect(problems("docs/a.md", "Done in #15.")).toEqual([[1, "#15"]]);
    expect(problems("lib/a.sql", "-- the leases, #15")).toEqual([[1, "#15"]]);
  });

  it("leaves colours, entities, public repositories' issues, anchors and string literals alone", () => {
    expect(problems("app/a.css", ".x { color: #111; background: #fafafa; border: 1px solid #000000 }")).toEqual([]);
    expect(problems("lib/a.ts", "// a border of #333 in dark mode, #ffffff on light")).toEqual([]);
    expect(problems("lib/a.ts", '// &#34; and &#x110000; are entities; npm/cli#9846 is public')).toEqual([]);
    expect(problems("lib/a.ts", 'const subject = "Invoice #42 — façade";')).toEqual([]);
    expect(problems("docs/a.md", "[limits](api.md#sending-limits), `#42` in code\n```\nissue-free #12 in a fence\n```")).toEqual([]);
    expect(problems("docs/a.md", "[§5](#5) and [POST /email](#5-post-email)")).toEqual([]);
    expect(problems("lib/a.ts", "// 5.7.11 Encryption required: issue STARTTLS first; the issue's own figure")).toEqual([]);
    expect(problems("lib/a.ts", "for (const issue of parsed.error.issues) put(issue.path, 1);")).toEqual([]);
  });
});

describe("isScanned", () => {
  it("reads the project's text and skips the lock file and images", () => {
    expect(isScanned("lib/a.ts")).toBe(true);
    expect(isScanned(".ci/run")).toBe(true);
    expect(isScanned("package-lock.json")).toBe(false);
    expect(isScanned("docs/screenshots/a.png")).toBe(false);
  });
});
