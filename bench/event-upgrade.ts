/**
 * `npm run bench:event-upgrade`: the upgrade of an unpartitioned event log
 * in place (docs/adr/0032, docs/BENCHMARKS.md "Event log upgrade").
 *
 * Starts an embedded PostgreSQL in a temp dir (or a fresh database on
 * BENCH_DATABASE_URL's server), migrates it to the schema before 0950, loads
 * BENCH_EVENTS (default 1,000,000) events over 30 days, then applies 0950,
 * 0951 and 0952 one by one, timing each, while a writer inserts one event
 * every 10 ms the way acceptance does (through `events`, whatever it is at
 * that moment) and records the longest insert.
 */
import os from "node:os";
import { insertEvents } from "../lib/storage/event-rows";
import { migrate } from "../lib/storage/migrate";
import { openBenchDatabase } from "./bench-database";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);

async function main() {
  const bench = await openBenchDatabase("upgrade", { max: 4 });
  const { database } = bench;
  const pool = database.pool;
  try {
    await migrate(pool, { before: "0950" });
    const account = "00000000-0000-4000-8000-000000000001";
    const now = Math.floor(Date.now() / 1000);
    const t0 = Date.now();
    await pool.query(
      `INSERT INTO events (account_id, message_id, type, logged_at, log_level, recipient)
       SELECT $1, gen_random_uuid(), (ARRAY['accepted','delivered','opened','clicked','failed'])[1 + g % 5],
              $2 - (g::bigint * 2654435761) % (30 * 86400), 'info', 'r@example.net'
       FROM generate_series(1, $3::int) g`,
      [account, now, EVENTS],
    );
    await pool.query("VACUUM ANALYZE events");
    console.log(`loaded ${EVENTS.toLocaleString("en-US")} events into the unpartitioned table in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    let writing = true;
    let longest = 0;
    let inserts = 0;
    const writer = (async () => {
      while (writing) {
        const s = performance.now();
        await insertEvents(database, [
          { account_id: account, message_id: crypto.randomUUID(), type: "accepted", logged_at: Math.floor(Date.now() / 1000), log_level: "info", recipient: "w@example.net", reason: "", ip: null, geo_city: null, geo_region: null, geo_country: null, url: null, details: null },
        ]);
        longest = Math.max(longest, performance.now() - s);
        inserts++;
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await new Promise((r) => setTimeout(r, 1000));
    const pauses: string[] = [];
    for (const step of ["0951", "0952", "0953"]) {
      longest = 0;
      const s = performance.now();
      const applied = await migrate(pool, { before: step });
      pauses.push(`${applied.join(", ")}: ${(performance.now() - s).toFixed(0)} ms, longest insert meanwhile ${longest.toFixed(0)} ms`);
    }
    writing = false;
    await writer;
    for (const p of pauses) console.log(p);
    const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM events");
    console.log(`after: ${rows[0]!.n.toLocaleString("en-US")} events (${EVENTS.toLocaleString("en-US")} loaded + ${inserts} written during the upgrade)`);
    console.log(`machine load average ${os.loadavg()[0]!.toFixed(1)} (shared machine: 2 cores, other work running)`);
  } finally {
    await bench.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
