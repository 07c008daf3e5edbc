import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startQueue } from "../../lib/queue/boss";
import { openDatabase } from "../../lib/storage/database";
import { startEmbeddedPostgres } from "../../lib/storage/embedded";
import { migrate } from "../../lib/storage/migrate";

/**
 * One PostgreSQL server for the whole integration run: the embedded one by
 * default, or the server named by DATABASE_URL (the production path, as CI's
 * second pass runs it). A template database is migrated once (our schema and
 * pg-boss's); every test file clones it (test/support/test-database.ts).
 */
declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  let dataDir: string | undefined;
  let stopServer = async () => {};
  let adminUrl: string;
  if (process.env.DATABASE_URL) {
    const u = new URL(process.env.DATABASE_URL);
    u.pathname = "/postgres";
    adminUrl = u.toString();
  } else {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-test-pg-"));
    const embedded = await startEmbeddedPostgres({ dataDir, port: 0 });
    stopServer = () => embedded.stop({ force: true });
    const u = new URL(embedded.url);
    u.pathname = "/postgres";
    adminUrl = u.toString();
  }
  const template = `mailroom_tmpl_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  const tmplUrl = new URL(adminUrl);
  tmplUrl.pathname = `/${template}`;
  const database = openDatabase(tmplUrl.toString(), { max: 2 });
  await migrate(database.pool);
  await database.close();
  const boss = await startQueue(tmplUrl.toString(), { max: 2 });
  await boss.stop({ graceful: false, wait: true, close: true });
  await admin.end();

  project.provide("pgAdminUrl", adminUrl);
  project.provide("pgTemplate", template);

  return async () => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    const { rows } = await c.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'mailroom_t_%' OR datname = $1",
      [template],
    );
    for (const r of rows) await c.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`).catch(() => {});
    await c.end();
    await stopServer();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
}
