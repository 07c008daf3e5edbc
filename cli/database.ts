import type { Config } from "../lib/config";
import { openDatabase, type Database } from "../lib/storage/database";
import { startEmbeddedPostgres } from "../lib/storage/embedded";
import { migrate } from "../lib/storage/migrate";
import { isDiskFull } from "../lib/storage/unavailable";
import { CliError } from "./output";

/**
 * The database a command works on: DATABASE_URL, or the embedded server on
 * MAILROOM_DATA_DIR (the running app's server when it is up, else one started
 * for this command and stopped after it). Migrations run first.
 */
export interface CliContext {
  config: Config;
  database: Database;
}

function describeConnectError(url: string, err: unknown): string {
  const e = err as NodeJS.ErrnoException & { code?: string };
  let where = "the database";
  try {
    const u = new URL(url);
    where = `the database at ${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    // keep the generic wording
  }
  if (isDiskFull(err)) return `Cannot use ${where}: its disk is full (${e.message}); free space in the data directory (or the database server's disk) and try again`;
  return `Cannot use ${where} (${e.code ?? e.message}): check DATABASE_URL and that the server is running`;
}

export async function withDatabase<T>(config: Config, work: (cli: CliContext) => Promise<T>): Promise<T> {
  let stopEmbedded = async () => {};
  let url = config.databaseUrl;
  if (!url) {
    const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort });
    if (embedded.owned) stopEmbedded = embedded.stop;
    url = embedded.url;
  }
  const database = openDatabase(url, { max: 4, applicationName: "mailroom-cli" });
  try {
    try {
      await migrate(database);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith("Migration ")) throw err;
      throw new CliError(describeConnectError(url, err));
    }
    return await work({ config, database });
  } finally {
    await database.close().catch(() => {});
    await stopEmbedded().catch(() => {});
  }
}
