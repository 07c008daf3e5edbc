/**
 * A preload (`NODE_OPTIONS="--import ./bench/count-sql.mjs"`) that counts the
 * SQL statements a delivery worker process (test/support/delivery-worker.ts)
 * sends, by statement, and writes them to $BENCH_SQL_COUNT/<pid>.json when it
 * exits. Any other process that loads it is left alone, unless
 * BENCH_SQL_COUNT_ALL=1 (then every process that loads pg, one file per pid).
 */
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const out = process.env.BENCH_SQL_COUNT;
if (out && (process.env.BENCH_SQL_COUNT_ALL === "1" || process.argv.some((a) => a.endsWith("delivery-worker.ts")))) {
  const require = createRequire(path.join(process.cwd(), "package.json"));
  const pg = require("pg");
  const counts = new Map();
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, ...rest) {
    const text = typeof config === "string" ? config : (config?.text ?? "");
    const name = typeof config === "object" && config?.name ? `[${config.name}] ` : "";
    const key = name + text.replace(/\s+/g, " ").trim().slice(0, 110);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return original.call(this, config, ...rest);
  };
  process.on("exit", () => {
    const rows = [...counts].sort((a, b) => b[1] - a[1]);
    writeFileSync(path.join(out, `${process.pid}.json`), JSON.stringify(rows, null, 1));
  });
}
