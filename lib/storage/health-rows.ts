import type { Queryable } from "./database";

/** One round trip to the server: reachable or it throws (/readyz, the outage log's probe). */
export async function ping(q: Queryable): Promise<void> {
  await q.query("SELECT 1");
}
