import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELIVER_CHANNEL } from "../../lib/storage/delivery-rows";
import { bearer, createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued, simpleEmail, waitForEvent } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The release loop of scheduled sends does not poll (docs/adr/0128): with
 * nothing due it makes no pass, a new scheduled message or a reschedule to
 * an earlier time wakes it (NOTIFY at commit), and it then sleeps until the
 * earliest SendAt and releases the message at that time. Real API, real
 * release loop, real SMTP delivery to the sandbox MX. The passes are counted
 * by the statement that releases due messages (named
 * "mailroom_release_scheduled"), which every pass runs at least once.
 */
describe("scheduled release: woken by new schedules and the earliest SendAt, not by a timer", () => {
  let app: TestApp;
  let apiKey: string;
  let passes = 0;
  beforeAll(async () => {
    app = await startTestApp();
    apiKey = (await createTestAccount(app.ctx)).apiKey;
    // Every connection checked out of the pool counts the release statements it runs
    // (pg's own pool.query checks out with a callback: both forms pass through).
    type Client = { query: (...args: unknown[]) => Promise<unknown> };
    type Callback = (err: unknown, client?: Client, release?: unknown) => void;
    const pool = app.ctx.database.pool as unknown as { connect: (cb?: Callback) => Promise<Client> | undefined };
    const counted = new WeakSet<object>();
    const count = (client: Client | undefined) => {
      if (!client || counted.has(client)) return client;
      counted.add(client);
      const query = client.query.bind(client);
      client.query = (...args: unknown[]) => {
        if ((args[0] as { name?: string } | undefined)?.name === "mailroom_release_scheduled") passes++;
        return query(...args);
      };
      return client;
    };
    const connect = pool.connect.bind(pool);
    pool.connect = (cb?: Callback) => {
      if (cb) return connect((err, client, release) => cb(err, count(client), release));
      return connect()!.then((client) => count(client)!);
    };
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
  });

  const now = () => Math.floor(Date.now() / 1000);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const accept = async (body: Record<string, unknown>) => {
    const res = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(apiKey), body: JSON.stringify(body) });
    const json = (await res.json()) as { MessageID: string };
    expect(res.status, JSON.stringify(json)).toBe(200);
    return json.MessageID;
  };
  const capturedAt = async (id: string) =>
    (await app.ctx.database.pool.query<{ received_at: Date }>("SELECT received_at FROM sandbox_messages WHERE mailroom_message_id = $1", [id])).rows[0]!.received_at.getTime();

  it("nothing scheduled: no pass in 2 s (a polling loop made one a second)", async () => {
    await sleep(500); // the start's pass
    passes = 0;
    // A negative window: a loop polling once a second would make two passes in it.
    await sleep(2000);
    expect(passes).toBe(0);
  });

  it("a new scheduled message wakes the loop, which sleeps until its SendAt and releases it then", async () => {
    passes = 0;
    const sendAt = now() + 3;
    const id = await accept(simpleEmail("woken@example.org", { SendAt: sendAt }));
    await waitForEvent(app.ctx, id, "delivered", "woken@example.org", 20_000);
    const at = await capturedAt(id);
    expect(at).toBeGreaterThanOrEqual(sendAt * 1000);
    expect(at).toBeLessThan(sendAt * 1000 + 2500);
    // The announcement's pass, the pass at SendAt (and at most a few more from the deliveries' own timing), never one a second.
    expect(passes).toBeGreaterThanOrEqual(2);
    expect(passes).toBeLessThanOrEqual(4);
  });

  it("a reschedule to an earlier time wakes the loop: delivered at the new time, not the old", async () => {
    const id = await accept(simpleEmail("earlier@example.org", { SendAt: now() + 600 }));
    await sleep(300);
    const sendAt = now() + 2;
    const res = await app.fetch(`/api/v1/email/${id}`, { method: "PATCH", headers: bearer(apiKey), body: JSON.stringify({ SendAt: sendAt }) });
    expect(res.status).toBe(200);
    await waitForEvent(app.ctx, id, "delivered", "earlier@example.org", 20_000);
    const at = await capturedAt(id);
    expect(at).toBeGreaterThanOrEqual(sendAt * 1000);
    expect(at).toBeLessThan(sendAt * 1000 + 2500);
  });

  it("a release announces its deliver jobs to the deliver loops of every process, so none waits for its poll", async () => {
    const listener = new pg.Client({ connectionString: app.ctx.database.url });
    await listener.connect();
    const heard: number[] = [];
    listener.on("notification", (n) => {
      if (n.channel === DELIVER_CHANNEL) heard.push(Date.now());
    });
    try {
      await listener.query(`LISTEN ${DELIVER_CHANNEL}`);
      const sendAt = now() + 3;
      const id = await accept(simpleEmail("announced@example.org", { SendAt: sendAt }));
      await waitForEvent(app.ctx, id, "delivered", "announced@example.org", 20_000);
      // The acceptance announced its recipients at once; the release, seconds later, announced the jobs.
      expect(heard.filter((t) => t >= sendAt * 1000 - 100).length).toBeGreaterThanOrEqual(1);
    } finally {
      await listener.end();
    }
  });
});
