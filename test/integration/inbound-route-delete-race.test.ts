import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInboundRoute, deleteRoute } from "../../lib/domain/inbound/routes";
import { routeOf, storeInbound, type ReceivedMessage } from "../../lib/domain/inbound/receive";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { until } from "./webhooks-helpers";

/**
 * An inbound route deleted while a message to it is being received: the SMTP
 * session matched the route at RCPT, and the route is gone by the time the
 * group commit stores the message. The message is stored with no route (as
 * ON DELETE SET NULL leaves the messages stored before the delete) and still
 * posted to the URL it was received for; the other sessions of the same group
 * commit are stored as well. A foreign-key error used to fail the whole group
 * commit (every session in it answered 451).
 */
describe("deleting an inbound route while a message to it is stored", () => {
  let app: TestApp;
  const RETENTION_MS = 86_400_000;
  const envelope = { mailFrom: "ann@sender.example", remoteIp: "127.0.0.1", helo: "sender.example" };
  const raw = Buffer.from("From: ann@sender.example\r\nTo: x@race.example\r\nSubject: Race\r\n\r\nHello\r\n");
  const allowAnyUrl = async () => {};

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.stop();
  });

  async function routedPair(name: string) {
    const gone = await createTestAccount(app.ctx, { name: `${name} gone`, domain: `${name}-gone.example` });
    const kept = await createTestAccount(app.ctx, { name: `${name} kept`, domain: `${name}-kept.example` });
    const goneRoute = await createInboundRoute(app.ctx.database, gone.accountId, { match: `*@${name}-gone.example`, webhookUrl: "http://127.0.0.1:9/gone" }, allowAnyUrl);
    await createInboundRoute(app.ctx.database, kept.accountId, { match: `*@${name}-kept.example`, webhookUrl: "http://127.0.0.1:9/kept" }, allowAnyUrl);
    const toGone = (await routeOf(app.ctx.database, `in@${name}-gone.example`))!;
    const toKept = (await routeOf(app.ctx.database, `in@${name}-kept.example`))!;
    const messages: ReceivedMessage[] = [
      { raw, recipients: [toGone], envelope, addressKey: envelope.remoteIp },
      { raw, recipients: [toKept], envelope, addressKey: envelope.remoteIp },
    ];
    return { gone, goneRoute, toKept, messages };
  }

  /** The rows' ids of each message (none is past a byte budget: there are none). */
  async function storedIds(messages: ReceivedMessage[]): Promise<string[][]> {
    const outcomes = await storeInbound(app.ctx, messages, { retentionMs: RETENTION_MS, budgets: { perAddressHour: 0, perAccountHour: 0 } });
    return outcomes.map((o) => ("ids" in o ? o.ids : []));
  }

  async function storedRows(ids: string[][]) {
    const { rows } = await app.ctx.database.pool.query<{ id: string; route_id: number | null; webhook_url: string }>(
      "SELECT id, route_id, webhook_url FROM inbound_messages WHERE id = ANY($1::uuid[]) ORDER BY webhook_url",
      [ids.flat()],
    );
    return rows;
  }

  it("stores the message without its route when the delete committed after the session matched it", async () => {
    const { gone, goneRoute, toKept, messages } = await routedPair("before");
    expect(await deleteRoute(app.ctx.database, gone.accountId, goneRoute.id)).toBe(true);

    const ids = await storedIds(messages);
    expect(await storedRows(ids)).toEqual([
      { id: ids[0]![0], route_id: null, webhook_url: "http://127.0.0.1:9/gone" },
      { id: ids[1]![0], route_id: toKept.route.id, webhook_url: "http://127.0.0.1:9/kept" },
    ]);
  });

  it("stores it without its route when the delete commits while the store waits for it", async () => {
    const { goneRoute, toKept, messages } = await routedPair("during");
    const pool = app.ctx.database.pool;
    const deleter = await pool.connect();
    try {
      await deleter.query("BEGIN");
      await deleter.query("DELETE FROM inbound_routes WHERE id = $1", [goneRoute.id]);
      const stored = storedIds(messages);
      // The store is under way and waits for the route row the DELETE holds.
      await until(
        async () => (await pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")).rows[0].n,
        (n) => n > 0,
      );
      await deleter.query("COMMIT");
      const ids = await stored;
      expect(await storedRows(ids)).toEqual([
        { id: ids[0]![0], route_id: null, webhook_url: "http://127.0.0.1:9/gone" },
        { id: ids[1]![0], route_id: toKept.route.id, webhook_url: "http://127.0.0.1:9/kept" },
      ]);
    } finally {
      deleter.release();
    }
  });

  it("keeps the route of a message whose store committed first; the later delete clears it", async () => {
    const { gone, goneRoute, messages } = await routedPair("after");
    const ids = await storedIds(messages);
    expect((await storedRows(ids))[0]!.route_id).toBe(goneRoute.id);
    expect(await deleteRoute(app.ctx.database, gone.accountId, goneRoute.id)).toBe(true);
    expect((await storedRows(ids))[0]!.route_id).toBeNull();
  });
});
