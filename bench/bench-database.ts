/**
 * A database of a benchmark's own: created on BENCH_DATABASE_URL's server, or on an
 * embedded PostgreSQL started in a temporary directory when that is unset. `close`
 * drops the database and stops and removes what it started.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { openDatabase, type Database } from "../lib/storage/database";
import { startEmbeddedPostgres } from "../lib/storage/embedded";

export interface BenchDatabase {
  /** The connection string of the benchmark's database. */
  url: string;
  database: Database;
  close(): Promise<void>;
}

/** `tag` names the database (`mailroom_bench_<tag>_<pid>`) and the temporary directory. */
export async function openBenchDatabase(tag: string, options: { max: number }): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `mailroom-bench-${tag}-`));
  let server = process.env.BENCH_DATABASE_URL;
  let stopServer = async () => {};
  if (!server) {
    const embedded = await startEmbeddedPostgres({ dataDir, port: 0 });
    stopServer = () => embedded.stop({ force: true });
    server = embedded.url;
  }
  const name = `mailroom_bench_${tag.replaceAll("-", "_")}_${process.pid}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const u = new URL(server);
  u.pathname = `/${name}`;
  const database = openDatabase(u.toString(), { max: options.max });
  return {
    url: u.toString(),
    database,
    async close() {
      await database.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.end();
      await stopServer();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
