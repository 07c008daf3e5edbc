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
  /**
   * Base of the links this process writes (tracking, unsubscribe):
   * config.publicUrl, except that with PORT=0 and no MAILROOM_PUBLIC_URL
   * server.ts sets it to the bound port's URL once the port is bound,
   * before any worker starts. The config itself is never changed.
   */
  publicUrl: string;
}
