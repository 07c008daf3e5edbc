import { execFile } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "../../lib/storage/embedded";

const run = promisify(execFile);

/**
 * A throwaway primary of the machine's PostgreSQL server and a streaming
 * standby made from it by `pg_basebackup -R` (as scripts/test-all.sh makes
 * its cluster: trust authentication on 127.0.0.1, run as `postgres` when
 * the tests run as root).
 */
export interface ReplicatedPair {
  primaryUrl: string;
  standbyUrl: string;
  /** Runs one statement on the standby, on a connection of its own. */
  standbyQuery<R extends pg.QueryResultRow>(sql: string): Promise<R[]>;
  stopStandby(): Promise<void>;
  startStandby(): Promise<void>;
  stop(): Promise<void>;
}

/** The newest installed server's bin directory with initdb and pg_basebackup, if any. */
export function postgresServerBin(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = path.join(root, v, "bin");
    if (existsSync(path.join(bin, "initdb")) && existsSync(path.join(bin, "pg_basebackup"))) return bin;
  }
  return undefined;
}

export async function startReplicatedPair(bin: string): Promise<ReplicatedPair> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mailroom-replica-"));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    await run("sh", ["-c", "id postgres >/dev/null 2>&1 || useradd -r -m postgres"]);
    const { stdout } = await run("id", ["-u", "postgres"]);
    chownSync(dir, Number(stdout.trim()), 0);
    chmodSync(dir, 0o755);
  }
  const pgRun = (tool: string, args: string[]) => (asRoot ? run("runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args]) : run(path.join(bin, tool), args));
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const primaryDir = path.join(dir, "primary");
  const standbyDir = path.join(dir, "standby");
  const options = (port: number) => `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off`;
  const pgCtl = (data: string, ...args: string[]) => pgRun("pg_ctl", ["-D", data, "-l", `${data}.log`, "-w", ...args]);
  let started: string[] = [];
  const stopAll = async () => {
    for (const data of started.reverse()) await pgCtl(data, "-m", "immediate", "stop").catch(() => {});
    started = [];
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await pgRun("initdb", ["-D", primaryDir, "-U", "mailroom", "--auth=trust", "-E", "UTF8"]);
    await pgCtl(primaryDir, "-o", options(primaryPort), "start");
    started.push(primaryDir);
    await pgRun("pg_basebackup", ["-h", "127.0.0.1", "-p", String(primaryPort), "-U", "mailroom", "-D", standbyDir, "-R", "-X", "stream", "-c", "fast"]);
    const startStandby = async () => {
      await pgCtl(standbyDir, "-o", options(standbyPort), "start");
      if (!started.includes(standbyDir)) started.push(standbyDir);
    };
    await startStandby();
    const standbyUrl = `postgres://mailroom@127.0.0.1:${standbyPort}/postgres`;
    return {
      primaryUrl: `postgres://mailroom@127.0.0.1:${primaryPort}/postgres`,
      standbyUrl,
      async standbyQuery<R extends pg.QueryResultRow>(sql: string) {
        const client = new pg.Client({ connectionString: standbyUrl });
        await client.connect();
        try {
          return (await client.query<R>(sql)).rows;
        } finally {
          await client.end();
        }
      },
      // Immediate: the replica vanishes as in a crash, its connections cut.
      stopStandby: async () => void (await pgCtl(standbyDir, "-m", "immediate", "stop")),
      startStandby,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
