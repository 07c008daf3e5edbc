/**
 * `npm run lint`, last step: every citation in the repo resolves inside the
 * repo, and no comment or doc names a numbered issue (scripts/citations.ts,
 * docs/adr/0012-citations-stay-inside-the-repo.md). Reads the tracked files
 * and the new ones not ignored by .gitignore; prints one line per problem.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { citationProblems, isScanned, type RepoView } from "./citations";

const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim();
const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate"], { cwd: root, encoding: "utf8" })
  .split("\0")
  .filter((f) => f !== "");
// A file deleted from the worktree but still in the index is not there to cite.
const present = new Set(files.filter((f) => existsSync(`${root}/${f}`)));
const repo: RepoView = {
  has: (path) => present.has(path),
  adrs: new Set([...present].flatMap((f) => /^docs\/adr\/(\d{4})-[^/]+\.md$/.exec(f)?.[1] ?? [])),
};

let count = 0;
for (const file of [...present].filter(isScanned).sort()) {
  const content = readFileSync(`${root}/${file}`, "utf8");
  if (content.includes("\0")) continue; // binary
  for (const p of citationProblems(file, content, repo)) {
    console.error(`${p.file}:${p.line}: ${p.reason}: ${p.text}`);
    count++;
  }
}
if (count > 0) {
  console.error(`\n${count} citation problem(s): cite docs/contract.md §…, docs/stack.md, docs/ARCHITECTURE.md or an ADR, and name capabilities, not issue numbers.`);
  process.exit(1);
}
