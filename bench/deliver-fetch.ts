/**
 * npm run bench:deliver-fetch: the deliver queue's two fetches (lib/storage/job-rows.ts) at a large
 * backlog, on an embedded PostgreSQL (or BENCH_DATABASE_URL's server): FETCH_LEASED (start_after order)
 * and FETCH_BY_TURNS (account turns, docs/adr/0325), each run BENCH_FETCHES times inside a transaction
 * that is rolled back (the backlog stays as it is), with the plan of one run.
 * BENCH_JOBS (100,000) jobs queued by BENCH_ACCOUNTS (1,10,100) accounts in turn.
 */
import { fetchLeasedJobs, fetchLeasedJobsByTurns, queueTable } from "../lib/storage/job-rows";
import { migrate } from "../lib/storage/migrate";
import { startQueue } from "../lib/queue/boss";
import { openBenchDatabase } from "./bench-database";

const JOBS = Number(process.env.BENCH_JOBS ?? 100_000);
const ACCOUNTS = (process.env.BENCH_ACCOUNTS ?? "1,10,100").split(",").map(Number);
const FETCHES = Number(process.env.BENCH_FETCHES ?? 50);
const BATCH = 64;

async function main() {
  const bench = await openBenchDatabase("fetch", { max: 2 });
  const { database } = bench;
  await migrate(database.pool);
  const boss = await startQueue(bench.url, { max: 2 });
  const table = queueTable("deliver");
  const client = await database.pool.connect();
  const sql = { executeSql: (text: string, values: unknown[]) => client.query(text, values) };
  try {
    for (const accounts of ACCOUNTS) {
      await client.query(`DELETE FROM ${table}`);
      await client.query(
        `INSERT INTO ${table} (name, data, singleton_key, start_after, policy)
         SELECT 'deliver', jsonb_build_object('messages', jsonb_build_array(jsonb_build_object('messageId', gen_random_uuid()::text, 'recipientIds', jsonb_build_array(g)))),
                'account-' || (g % $2), now() - interval '1 hour' + g * interval '1 millisecond', 'standard'
           FROM generate_series(1, $1::int) g`,
        [JOBS, accounts],
      );
      await client.query(`VACUUM ANALYZE ${table}`);
      for (const [label, fetch] of [
        ["start_after order", () => fetchLeasedJobs(sql, "deliver", BATCH, 1)],
        ["account turns", () => fetchLeasedJobsByTurns(sql, "deliver", BATCH, 1, [])],
      ] as const) {
        const times: number[] = [];
        for (let i = 0; i < FETCHES; i++) {
          await client.query("BEGIN");
          const t = performance.now();
          const rows = await fetch();
          times.push(performance.now() - t);
          await client.query("ROLLBACK");
          if (rows.length === 0) throw new Error("fetched nothing");
        }
        times.sort((a, b) => a - b);
        console.log(`${JOBS.toLocaleString("en-US")} jobs, ${accounts} accounts, ${label}: median ${times[FETCHES >> 1]!.toFixed(2)} ms, p90 ${times[Math.floor(FETCHES * 0.9)]!.toFixed(2)} ms per fetch of ${BATCH}`);
      }
    }
  } finally {
    client.release();
    await boss.stop({ graceful: false });
    await bench.close();
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
