import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listHolds, releaseHolds } from "../../lib/delivery/destinations/holds";
import { listQueues, retryNow } from "../../lib/delivery/destinations/queue-control";
import { createTestAccount } from "../support/fixtures";
import { eventsOf, expectNoRecipientLeftQueued, sendViaApi, waitFor } from "../support/delivery-helpers";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import { mostAttemptsInWindow, startProviderPeers } from "../support/provider-peers";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Destinations on the fake internet (test/support/fake-dns.ts, provider-peers.ts): the real app in MX
 * mode, its lookups on the rig's DNS, its MX hosts on 127.0.0.x at the rig's port (docs/adr/0324).
 */

const text = (to: string) => ({ From: { email: "shop@example.com" }, To: [{ email: to }], Subject: "hi", ContentType: "Text", PlainContent: "hello" });

async function finalEventsOf(app: TestApp, ids: string[]) {
  const all = await Promise.all(ids.map((id) => eventsOf(app.ctx, id)));
  return all.flat().filter((e) => ["delivered", "failed", "rejected"].includes(e.type));
}

async function startRig(behaviour: Parameters<typeof startProviderPeers>[0][number], first: number, domain: string, env: Record<string, string> = {}) {
  const dns: FakeDns = await startFakeDns();
  const [peer] = await startProviderPeers([behaviour], first);
  dns.mx(domain, [{ name: `mx.${domain}`, address: peer!.host }]);
  const app = await startTestApp({
    MAILROOM_DELIVERY: "mx",
    MAILROOM_ALLOW_PRIVATE_MX: "true",
    MAILROOM_DNS_SERVERS: dns.address,
    MAILROOM_MX_PORT: String(peer!.port),
    ...env,
  });
  const { apiKey } = await createTestAccount(app.ctx);
  return { dns, peer: peer!, app, apiKey };
}

describe("a destination that answers 421 4.7.28 past 60 messages a minute", () => {
  let rig: Awaited<ReturnType<typeof startRig>>;
  beforeAll(async () => {
    // A refused copy is retried 5 s later (an attempt spent); the gate paces everything else.
    rig = await startRig({ kind: "rate", perWindow: 60 }, 30, "rate.test", { MAILROOM_DELIVERY_RETRY_SCHEDULE: "5s" });
  });
  afterAll(async () => {
    if (rig?.app) await expectNoRecipientLeftQueued(rig.app.ctx);
    await rig?.app.stop();
    await rig?.peer.stop();
    await rig?.dns.stop();
  });

  it("is throttled after its first refusals: attempts stay under its rate, and everything is delivered", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 90; i++) ids.push(await sendViaApi(rig.app, rig.apiKey, text(`r${i}@rate.test`)));
    // Queue control shows the throttle the worker set (recorded in destination_throttles), with its rate.
    const row = await waitFor("queue list to show the throttle", async () => {
      const r = (await listQueues(rig.app.ctx)).find((q) => q.key === "rate.test");
      return r?.state === "throttled" ? r : undefined;
    }, 60_000);
    expect(row.throttles[0]).toMatchObject({ key: "mx.rate.test", domain: "rate.test", reason: expect.stringMatching(/^421 4\.7\.28/) });
    expect(row.throttles[0]!.perMinute).toBeLessThan(60);
    expect(row.throttles[0]!.endsAt.getTime()).toBeGreaterThan(Date.now());
    const finals = await waitFor("every recipient final", async () => {
      const f = await finalEventsOf(rig.app, ids);
      return f.length >= 90 ? f : undefined;
    }, 280_000);
    expect(finals.filter((e) => e.type !== "delivered")).toEqual([]);
    expect(finals).toHaveLength(90);
    const firstRefusal = Math.min(...rig.peer.attempts.filter((a) => a.code === 421).map((a) => a.at));
    expect(Number.isFinite(firstRefusal)).toBe(true);
    // Copies already in flight at the first refusal are answered within a moment; after that, under 60 a minute.
    expect(mostAttemptsInWindow(rig.peer.attempts, firstRefusal + 2000)).toBeLessThan(60);
    // A deferral names why: the throttle.
    const { rows } = await rig.app.ctx.database.pool.query<{ n: string }>("SELECT count(*) AS n FROM delivery_attempts WHERE reply LIKE 'Throttled:%'");
    expect(Number(rows[0]!.n)).toBeGreaterThan(0);
  }, 300_000);
});

describe("a destination that answers 550 5.7.1 with a block list", () => {
  let rig: Awaited<ReturnType<typeof startRig>>;
  beforeAll(async () => {
    rig = await startRig({ kind: "block-list" }, 40, "blocked.test");
  });
  afterAll(async () => {
    if (rig?.app) await expectNoRecipientLeftQueued(rig.app.ctx);
    await rig?.app.stop();
    await rig?.peer.stop();
    await rig?.dns.stop();
  });

  it("is suspended: no connection until it is resumed, then each recipient has one final event", async () => {
    const first = await sendViaApi(rig.app, rig.apiKey, text("a@blocked.test"));
    const hold = await waitFor("the automatic hold", async () => (await listHolds(rig.app.ctx.database)).find((h) => h.key === "mx.blocked.test"));
    expect(hold).toMatchObject({ source: "automatic", accountId: null });
    expect(hold.reason).toContain("spamhaus");
    // The refused recipient waits for the destination, not failed for it.
    await waitFor("a@ deferred", async () => {
      const { rows } = await rig.app.ctx.database.pool.query<{ status: string }>("SELECT status FROM message_recipients WHERE email = 'a@blocked.test'");
      return rows[0]?.status === "deferred" ? true : undefined;
    });
    const connections = rig.peer.connections.length;
    const ids = [first];
    for (const to of ["b@blocked.test", "c@blocked.test", "d@blocked.test"]) ids.push(await sendViaApi(rig.app, rig.apiKey, text(to)));
    const held = await waitFor("the others held", async () => {
      const { rows } = await rig.app.ctx.database.pool.query<{ email: string; last_reply: string; attempts: number }>(
        "SELECT email, last_reply, attempts FROM message_recipients WHERE email IN ('b@blocked.test','c@blocked.test','d@blocked.test') AND status = 'deferred'",
      );
      return rows.length === 3 ? rows : undefined;
    });
    for (const r of held) {
      expect(r.last_reply).toMatch(/^Held: mx\.blocked\.test suspended automatically until /);
      expect(r.attempts).toBe(0);
    }
    await new Promise((r) => setTimeout(r, 1500));
    expect(rig.peer.connections.length).toBe(connections);

    rig.peer.unblock();
    await releaseHolds(rig.app.ctx.database, "mx.blocked.test");
    await retryNow(rig.app.ctx, "blocked.test");
    const finals = await waitFor("every recipient final", async () => {
      const f = await finalEventsOf(rig.app, ids);
      return f.length >= 4 ? f : undefined;
    }, 30_000);
    expect(finals.map((e) => `${e.type} ${e.recipient}`).sort()).toEqual(["a", "b", "c", "d"].map((x) => `delivered ${x}@blocked.test`));
    expect(rig.peer.delivered).toHaveLength(4);
  }, 60_000);
});
