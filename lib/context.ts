import type { Config } from "./config";
import type { Logger } from "./logger";
import type { PgBoss } from "./queue/boss";
import type { Database } from "./storage/database";

/**
 * What a running process has: configuration, the database, the queue and a
 * logger. Built by server.ts (or `mailroom worker`, or a test) and passed
 * down; nothing reads globals.
 */
export interface AppContext {
  config: Config;
  database: Database;
  boss: PgBoss;
  log: Logger;
}
