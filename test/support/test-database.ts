import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

/** A fresh database cloned from the migrated template; returns its URL. */
export async function createTestDatabase(): Promise<string> {
  const adminUrl = inject("pgAdminUrl");
  const template = inject("pgTemplate");
  const name = `mailroom_t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        break;
      } catch (err) {
        // Two files cloning the template at the same instant: try again.
        if (attempt > 20 || !/being accessed by other users/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A fresh empty database (no migration applied), for tests of an upgrade from an older schema; returns its URL. */
export async function createEmptyTestDatabase(): Promise<string> {
  const adminUrl = inject("pgAdminUrl");
  const name = `mailroom_t_empty_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
