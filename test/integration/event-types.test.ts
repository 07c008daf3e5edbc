import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../lib/contract/events";
import { createTestDatabase } from "../support/test-database";

/**
 * The event types are defined twice: `EVENT_TYPES` in lib/contract/events.ts
 * (the GET /events filter, GET /stats, the dashboard) and the CHECK
 * constraint on `events.type` that the migrations create. A type added to
 * one and not the other fails here, against the migrated database
 * (docs/ARCHITECTURE.md, "Adding an event type"; docs/contract.md §8.1).
 */
describe("event types: lib/contract and the database's CHECK on events.type", () => {
  let client: pg.Client;

  beforeAll(async () => {
    client = new pg.Client({ connectionString: await createTestDatabase() });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
  });

  /** The values of every CHECK constraint of `events` that reads the column `type`. */
  async function checkedValues(): Promise<string[]> {
    const { rows } = await client.query<{ def: string }>(
      `SELECT pg_get_constraintdef(c.oid) AS def
         FROM pg_constraint c
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
        WHERE c.conrelid = 'public.events'::regclass AND c.contype = 'c' AND a.attname = 'type'`,
    );
    expect(rows, "exactly one CHECK constraint on events.type").toHaveLength(1);
    // PostgreSQL renders `type IN ('a', 'b')` as `(type = ANY (ARRAY['a'::text, 'b'::text]))`.
    return [...rows[0]!.def.matchAll(/'((?:[^']|'')*)'::text/g)].map((m) => m[1]!.replaceAll("''", "'"));
  }

  /** Whether the database takes an event of this type (inside a transaction that is rolled back). */
  async function accepts(type: string): Promise<boolean> {
    await client.query("BEGIN");
    try {
      await client.query(
        "INSERT INTO events (account_id, message_id, type, logged_at) VALUES (gen_random_uuid(), gen_random_uuid(), $1, 0)",
        [type],
      );
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === "23514") return false; // check_violation
      throw err;
    } finally {
      await client.query("ROLLBACK");
    }
  }

  it("lists exactly the types of EVENT_TYPES", async () => {
    expect([...(await checkedValues())].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it("takes an event of every type of EVENT_TYPES, and refuses one that is not", async () => {
    for (const type of EVENT_TYPES) expect(await accepts(type), type).toBe(true);
    const others = ["bounced", "Accepted", "accepted-by-system", ""].filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
    for (const type of others) expect(await accepts(type), JSON.stringify(type)).toBe(false);
  });
});
