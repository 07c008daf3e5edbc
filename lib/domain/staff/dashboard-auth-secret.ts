import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { lockForTransaction } from "../../storage/advisory-lock-rows";
import { selectDashboardKeyRows, updateDashboardKeySeal } from "../../storage/dashboard-key-rows";
import type { Database, Queryable } from "../../storage/database";
import { deleteSetting, selectSetting } from "../../storage/instance-setting-rows";
import { withTransaction } from "../../storage/transaction";
import { DASHBOARD_KEY_LOCK_ID, DASHBOARD_KEY_PURPOSE } from "./dashboard-key-seal";
import { sealSecret, unsealSecret } from "../shared/sealed-secret";

/**
 * The secret that signs and encrypts dashboard sessions and seals each
 * account's dashboard API key (docs/adr/0508-dashboard-secret-outside-the-database.md):
 * AUTH_SECRET when configured, else one generated once and kept in the data
 * directory (`<MAILROOM_DATA_DIR>/auth-secret`, mode 0600, created
 * atomically). Never in the database: a backup or read-only access to it
 * must yield neither a session nor a sealed key. With DATABASE_URL, server.ts
 * requires AUTH_SECRET (the app processes on one database share no directory).
 *
 * Installations from before kept the generated secret in `instance_settings`
 * (`dashboard.auth_secret`): it is moved to the file once (so sessions and
 * sealed keys keep working) and deleted from the table; when the secret in
 * use is another one (AUTH_SECRET, or a file already there), the keys
 * sealed with the old one are sealed again with it first.
 */

export const AUTH_SECRET_FILE = "auth-secret";
/** Where installations before ADR 0508 kept the generated secret; only read to move it. */
export const LEGACY_AUTH_SECRET_SETTING = "dashboard.auth_secret";
const MIN_LENGTH = 16;

export class AuthSecretError extends Error {}

export interface DashboardSecret {
  secret: string;
  source: "AUTH_SECRET" | "file";
  /** An old installation's secret was found in the database and moved (to the file, or resealed under the secret in use). */
  movedFromDatabase: boolean;
}

/** The secret of `<dataDir>/auth-secret`, or undefined when there is no such file. */
export async function readAuthSecretFile(dataDir: string): Promise<string | undefined> {
  const file = path.join(dataDir, AUTH_SECRET_FILE);
  let text: string;
  try {
    const handle = await fs.open(file, "r");
    try {
      const { mode, size } = await handle.stat();
      if (size > 4096) throw new AuthSecretError(`${file} is not a Mailroom secret (larger than 4 KB): delete it to have a new one generated (every dashboard session ends)`);
      // Readable by others: it signs every session. Tightened, as ssh would insist on.
      if ((mode & 0o077) !== 0) await handle.chmod(0o600);
      text = await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  const secret = text.trim();
  if (secret.length < MIN_LENGTH || /\s/.test(secret)) {
    throw new AuthSecretError(`${file} does not hold a secret of at least ${MIN_LENGTH} characters: delete it to have a new one generated (every dashboard session ends), or set AUTH_SECRET`);
  }
  return secret;
}

/**
 * Creates `<dataDir>/auth-secret` holding `value` unless it exists: written
 * to a private temporary file (0600, flushed), then linked to its name,
 * which fails if another process was first; either way the file's content
 * is returned, never a half-written one.
 */
export async function createAuthSecretFile(dataDir: string, value: string): Promise<string> {
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, AUTH_SECRET_FILE);
  const temporary = path.join(dataDir, `.${AUTH_SECRET_FILE}-${process.pid}-${randomBytes(6).toString("hex")}`);
  const handle = await fs.open(temporary, "wx", 0o600);
  try {
    await handle.writeFile(`${value}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.link(temporary, file);
    await syncDirectory(dataDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    await fs.unlink(temporary).catch(() => undefined);
  }
  const stored = await readAuthSecretFile(dataDir);
  if (!stored) throw new AuthSecretError(`${file} vanished while it was created`);
  return stored;
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, "r").catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    // Some filesystems refuse to sync a directory: the link is still made.
  } finally {
    await handle.close();
  }
}

/** The secret an old installation kept in the database, if any. */
async function legacySecret(q: Queryable): Promise<string | undefined> {
  return (await selectSetting(q, LEGACY_AUTH_SECRET_SETTING))?.value;
}

/**
 * The dashboard's secret for this process: `configured` (AUTH_SECRET), else
 * the data directory's file (created on first use), after moving an old
 * installation's secret out of the database.
 */
export async function resolveDashboardSecret(database: Database, options: { configured?: string; dataDir: string }): Promise<DashboardSecret> {
  const legacy = await legacySecret(database);
  let secret: string;
  let source: DashboardSecret["source"];
  if (options.configured) {
    secret = options.configured;
    source = "AUTH_SECRET";
  } else {
    secret = (await readAuthSecretFile(options.dataDir)) ?? (await createAuthSecretFile(options.dataDir, legacy ?? randomBytes(32).toString("base64url")));
    source = "file";
  }
  const movedFromDatabase = legacy !== undefined && (await forgetLegacySecret(database, secret));
  return { secret, source, movedFromDatabase };
}

/**
 * Deletes the old installation's secret from the database, after sealing
 * again with `secret` every dashboard key that only it opens (under the
 * dashboard keys' lock, so no key is made meanwhile). True when a row was deleted.
 */
async function forgetLegacySecret(database: Database, secret: string): Promise<boolean> {
  return withTransaction(database, async (tx) => {
    await lockForTransaction(tx, DASHBOARD_KEY_LOCK_ID);
    const legacy = await legacySecret(tx);
    if (legacy === undefined) return false;
    if (legacy !== secret) {
      for (const row of await selectDashboardKeyRows(tx)) {
        const plain = unsealSecret(row.sealed, legacy, DASHBOARD_KEY_PURPOSE);
        if (plain === undefined || unsealSecret(row.sealed, secret, DASHBOARD_KEY_PURPOSE) !== undefined) continue;
        await updateDashboardKeySeal(tx, row.accountId, sealSecret(plain, secret, DASHBOARD_KEY_PURPOSE));
      }
    }
    return deleteSetting(tx, LEGACY_AUTH_SECRET_SETTING);
  });
}
