import pg from "pg";

/**
 * LISTEN for "new work" announcements (lib/queue/listen.ts) on a dedicated
 * connection: a listening session cannot be a pooled one.
 */

/** A listening connection (not pooled: it keeps its LISTEN for its whole session). */
export type ListenConnection = pg.Client;

/** A new, not yet connected, connection: the listener attaches its handlers before connecting. */
export function newListenConnection(url: string, applicationName: string): ListenConnection {
  return new pg.Client({ connectionString: url, application_name: applicationName });
}

/** LISTEN on `channel` (an identifier: it cannot be a parameter). */
export async function listenOn(c: ListenConnection, channel: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  await c.query(`LISTEN ${channel}`);
}
