import { randomBytes } from "node:crypto";
import type { Logger } from "../../logger";
import { hasDefaultAccount } from "../../storage/account-rows";
import { lockForTransaction } from "../../storage/advisory-lock-rows";
import { isLiveKeyHashOf, revokeApiKeyRow } from "../../storage/api-key-rows";
import { selectDashboardKeyRow, upsertDashboardKeyRow } from "../../storage/dashboard-key-rows";
import type { Database, Queryable } from "../../storage/database";
import { deleteSetting, insertSetting, insertSettingIfAbsent, selectSettingForUpdate, updateSetting } from "../../storage/instance-setting-rows";
import { selectStaffUserByEmail } from "../../storage/staff-rows";
import { withTransaction } from "../../storage/transaction";
import { createAccountIn, getAccount, getDefaultAccount } from "../accounts/accounts";
import { createApiKey, hashApiKey, revokeApiKey } from "../accounts/api-keys";
import { DASHBOARD_KEY_LOCK_ID, DASHBOARD_KEY_PURPOSE } from "./dashboard-key-seal";
import { sealSecret, unsealSecret } from "../shared/sealed-secret";
import { addStaffUser, grantMembershipIn, setStaffOwner, setStaffPassword } from "./staff-users";

/**
 * First start of a fresh install (docs/adr/0200-first-start-provisioning.md):
 * the Demo account (default, plan `unlimited`) with a verified example.com
 * sender domain and its API key, an admin staff user with a random password
 * who is an owner and admin of Demo (ADR 0510). The dashboard's own API key
 * of an account is made on demand (getDashboardApiKey).
 *
 * "First" is decided by inserting the `installed_at` row of
 * instance_settings in the same transaction as everything else: a second
 * process starting at the same moment blocks on that primary key until the
 * first commits, then finds the row and provisions nothing.
 */

export const INSTALLED_AT_SETTING = "installed_at";
/**
 * Present from provisioning until `npm start` has printed the first start's
 * credentials (docs/adr/0203): `{"accountId":…,"apiKeyId":…,"admin":true}`,
 * ids only, never a secret. A start that finds it (the first start failed
 * before printing) issues a new Demo key and admin password and prints them.
 */
export const CREDENTIALS_UNSHOWN_SETTING = "first_start_credentials_unshown";
export const DEMO_ACCOUNT_NAME = "Demo";
export const DEMO_PLAN = "unlimited";
export const DEMO_DOMAIN = "example.com";
export const DEMO_ADMIN_EMAIL = "admin@example.com";

export interface FirstStartReport {
  /** Present only on the very first start of an installation. Secrets are shown once. */
  demo?: {
    accountId: string;
    accountName: string;
    domain: string;
    apiKey: string;
    /** Absent when a staff user with that email already existed (made with the CLI before the first start). */
    adminEmail?: string;
    adminPassword?: string;
    /** True when these replace credentials of an earlier start that failed before printing them (docs/adr/0203). */
    reissued?: boolean;
  };
  /** The provisioned admin has never signed in: every start says how to get in (docs/adr/0203). */
  adminNotSignedIn?: { email: string };
}

interface UnshownCredentials {
  accountId: string;
  apiKeyId: string;
  admin: boolean;
}

function parseUnshown(value: string): UnshownCredentials | undefined {
  try {
    const v = JSON.parse(value) as Partial<UnshownCredentials>;
    return typeof v.accountId === "string" && typeof v.apiKeyId === "string" ? { accountId: v.accountId, apiKeyId: v.apiKeyId, admin: v.admin === true } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the provisioned admin exists and has never signed in. */
async function adminNotSignedIn(q: Queryable): Promise<{ email: string } | undefined> {
  const admin = await selectStaffUserByEmail(q, DEMO_ADMIN_EMAIL);
  return admin && !admin.lastLoginAt ? { email: DEMO_ADMIN_EMAIL } : undefined;
}

/**
 * Called by `npm start` once it has printed the credentials of the report:
 * from now on they have been shown, and later starts only remind the admin
 * how to get in until they sign in.
 */
export async function markFirstStartCredentialsShown(q: Queryable): Promise<void> {
  await deleteSetting(q, CREDENTIALS_UNSHOWN_SETTING);
}

/**
 * The credentials of a first start that never printed them: their secrets
 * exist only as hashes, so new ones replace them (the Demo key is revoked
 * and a new one made; the admin gets a new password if they never signed
 * in). The row stays until `markFirstStartCredentialsShown`.
 */
async function reissueUnshown(q: Queryable, row: { value: string }): Promise<FirstStartReport["demo"]> {
  const unshown = parseUnshown(row.value);
  const account = unshown && (await getAccount(q, unshown.accountId));
  if (!unshown || !account) {
    await markFirstStartCredentialsShown(q); // the account is gone (removed with the CLI): nothing to show
    return undefined;
  }
  await revokeApiKey(q, unshown.apiKeyId, account.id);
  const { key, apiKey } = await createApiKey(q, account.id, "demo");
  const demo: NonNullable<FirstStartReport["demo"]> = { accountId: account.id, accountName: account.name, domain: DEMO_DOMAIN, apiKey, reissued: true };
  if (unshown.admin) {
    const admin = await selectStaffUserByEmail(q, DEMO_ADMIN_EMAIL);
    if (admin && !admin.lastLoginAt) {
      demo.adminPassword = generatePassword();
      demo.adminEmail = DEMO_ADMIN_EMAIL;
      await setStaffPassword(q, DEMO_ADMIN_EMAIL, demo.adminPassword, { mustChangePassword: true });
    }
  }
  await updateSetting(q, CREDENTIALS_UNSHOWN_SETTING, JSON.stringify({ ...unshown, apiKeyId: key.id } satisfies UnshownCredentials));
  return demo;
}

export function generatePassword(): string {
  return randomBytes(18).toString("base64url"); // 24 characters, 144 bits
}

export async function ensureFirstStart(ctx: { database: Database; log: Logger }, options: { reissueUnshown?: boolean } = {}): Promise<FirstStartReport> {
  return withTransaction(ctx.database, async (tx) => {
    const marked = await insertSettingIfAbsent(tx, INSTALLED_AT_SETTING, new Date().toISOString());
    if (!marked) {
      // Credentials a failed first start never printed (locked: two processes starting together reissue one after the other).
      const unshown = await selectSettingForUpdate(tx, CREDENTIALS_UNSHOWN_SETTING);
      const demo = unshown && options.reissueUnshown ? await reissueUnshown(tx, unshown) : undefined;
      if (demo) ctx.log.info({ accountId: demo.accountId }, "first start: the credentials were never shown; issued new ones");
      const pending = await adminNotSignedIn(tx);
      return { ...(demo && { demo }), ...(pending && { adminNotSignedIn: pending }) };
    }

    // A default account may already exist if the install predates this marker.
    const existingDefault = await hasDefaultAccount(tx);
    const demo = await createAccountIn(tx, {
      name: DEMO_ACCOUNT_NAME,
      plan: DEMO_PLAN,
      domain: DEMO_DOMAIN,
      verified: true,
      isDefault: !existingDefault,
      keyLabel: "demo",
    });

    const report: { demo: NonNullable<FirstStartReport["demo"]> } = {
      demo: { accountId: demo.accountId, accountName: demo.name, domain: DEMO_DOMAIN, apiKey: demo.apiKey },
    };
    const admin = await selectStaffUserByEmail(tx, DEMO_ADMIN_EMAIL);
    if (!admin) {
      const password = generatePassword();
      // Printed once to the terminal: the admin is asked to choose their own at first sign-in (ADR 0505).
      await addStaffUser(tx, {
        email: DEMO_ADMIN_EMAIL,
        role: "admin",
        password,
        name: "Admin",
        mustChangePassword: true,
        accountId: demo.accountId,
        owner: true,
      });
      report.demo.adminEmail = DEMO_ADMIN_EMAIL;
      report.demo.adminPassword = password;
    } else {
      // Made with the CLI before the first start: still the Demo admin (ADR 0510).
      await grantMembershipIn(tx, DEMO_ADMIN_EMAIL, demo.accountId, "admin");
      await setStaffOwner(tx, DEMO_ADMIN_EMAIL, true);
    }
    await insertSetting(
      tx,
      CREDENTIALS_UNSHOWN_SETTING,
      JSON.stringify({ accountId: demo.accountId, apiKeyId: demo.apiKeyId, admin: Boolean(report.demo.adminPassword) } satisfies UnshownCredentials),
    );
    ctx.log.info({ accountId: demo.accountId }, "first start: created the Demo account and an admin user");
    const pending = await adminNotSignedIn(tx);
    return { ...report, ...(pending && { adminNotSignedIn: pending }) };
  });
}

async function storeDashboardKey(q: Queryable, accountId: string, secret: string): Promise<string> {
  const { apiKey, key: info } = await createApiKey(q, accountId, "dashboard");
  const id = info.id;
  const sealed = sealSecret(apiKey, secret, DASHBOARD_KEY_PURPOSE);
  await upsertDashboardKeyRow(q, accountId, id, sealed);
  return apiKey;
}

/** True when `apiKey` is a live (not revoked) key of `accountId`. */
async function isLiveKeyOf(q: Queryable, apiKey: string, accountId: string): Promise<boolean> {
  return isLiveKeyHashOf(q, hashApiKey(apiKey), accountId);
}

/**
 * The API key the dashboard uses server-side for an account (docs/ARCHITECTURE.md,
 * "The dashboard"; one per account, ADR 0510): `accountId`, else the default
 * account. Created on demand and stored sealed (AES-256-GCM under a key
 * derived from `secret`: AUTH_SECRET, else the generated one of the data
 * directory, never kept in the database: lib/domain/staff/dashboard-auth-secret.ts):
 * never in plain text. When it is missing, revoked, or sealed
 * under another secret, a new key is made (labelled "dashboard") under an
 * advisory lock, so every process agrees on one key; a key that can no
 * longer be unsealed is revoked. Undefined when no account exists. Never
 * send it to the browser.
 */
export async function getDashboardApiKey(database: Database, options: { accountId?: string; secret: string }): Promise<string | undefined> {
  const account = options.accountId ? await getAccount(database, options.accountId) : await getDefaultAccount(database);
  if (!account) return undefined;
  const { secret } = options;
  const key = await withTransaction(database, async (tx) => {
    await lockForTransaction(tx, DASHBOARD_KEY_LOCK_ID);
    const row = await selectDashboardKeyRow(tx, account.id);
    if (row) {
      const plain = unsealSecret(row.sealed, secret, DASHBOARD_KEY_PURPOSE);
      if (plain && (await isLiveKeyOf(tx, plain, account.id))) return plain;
      // Unreadable (the secret changed): nobody can use it any more, so it must not stay live.
      if (!plain) await revokeApiKeyRow(tx, row.apiKeyId);
    }
    return storeDashboardKey(tx, account.id, secret);
  });
  return key;
}
