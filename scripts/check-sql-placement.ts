/**
 * `npm run lint`: SQL text and the drizzle query builder only in lib/storage,
 * and transactions started only by lib/storage/transaction.ts's
 * inTransactionOn (docs/adr/0038). Prints one line per statement, `sql`
 * fragment, drizzle import or builder call found elsewhere, and per BEGIN.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { beginProblems, builderProblems, isCheckedForSql, isCheckedForTransactions, sqlProblems } from "./sql-placement";

const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim();
const tracked = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate"], { cwd: root, encoding: "utf8" })
  .split("\0")
  .filter((f) => f !== "" && existsSync(`${root}/${f}`));
const files = tracked.filter(isCheckedForSql);

let count = 0;
for (const file of files.sort()) {
  for (const p of sqlProblems(file, readFileSync(`${root}/${file}`, "utf8"))) {
    console.error(`${p.file}:${p.line}: SQL outside lib/storage: ${p.text}`);
    count++;
  }
}
let builders = 0;
for (const file of files.sort()) {
  for (const p of builderProblems(file, readFileSync(`${root}/${file}`, "utf8"))) {
    console.error(`${p.file}:${p.line}: the query builder outside lib/storage: ${p.text}`);
    builders++;
  }
}
let begins = 0;
for (const file of tracked.filter(isCheckedForTransactions).sort()) {
  for (const p of beginProblems(file, readFileSync(`${root}/${file}`, "utf8"))) {
    console.error(`${p.file}:${p.line}: a transaction started outside inTransactionOn: ${p.text}`);
    begins++;
  }
}
if (begins > 0) {
  console.error(`\n${begins} transaction(s) started by hand: use withTransaction or inTransactionOn of lib/storage/transaction.ts (docs/adr/0038).`);
  process.exit(1);
}
if (count > 0) {
  console.error(`\n${count} SQL text(s) outside lib/storage: move them into a lib/storage row module (docs/adr/0038).`);
}
if (builders > 0) {
  console.error(`\n${builders} use(s) of the query builder outside lib/storage: call a lib/storage row module's function, which returns plain rows (docs/adr/0038).`);
}
if (count > 0 || builders > 0) process.exit(1);
