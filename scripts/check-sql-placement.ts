/**
 * `npm run lint`: SQL text only in lib/storage (docs/adr/0038). Prints one
 * line per statement or `sql` fragment found elsewhere.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { isCheckedForSql, sqlProblems } from "./sql-placement";

const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim();
const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate"], { cwd: root, encoding: "utf8" })
  .split("\0")
  .filter((f) => f !== "" && isCheckedForSql(f) && existsSync(`${root}/${f}`));

let count = 0;
for (const file of files.sort()) {
  for (const p of sqlProblems(file, readFileSync(`${root}/${file}`, "utf8"))) {
    console.error(`${p.file}:${p.line}: SQL outside lib/storage: ${p.text}`);
    count++;
  }
}
if (count > 0) {
  console.error(`\n${count} SQL text(s) outside lib/storage: move them into a lib/storage row module (docs/adr/0038).`);
  process.exit(1);
}
