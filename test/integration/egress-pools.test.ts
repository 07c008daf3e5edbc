import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addEgressAddress, assignEgressPool, egressView, loadWarmupSchedule } from "../../lib/delivery/egress/admin";
import { createTestAccount } from "../support/fixtures";
import { eventsOf, sendViaApi, waitFor } from "../support/delivery-helpers";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Egress addresses, pools and warm-up caps (docs/egress.md, docs/adr/0327) on
 * the fake internet: the real app in MX mode, its lookups on the rig's DNS,
 * two providers' MX hosts on 127.0.0.20 and 127.0.0.21 (one port), a third
 * that records the EHLO name; connections bound to 127.0.0.2, .3 and .4.
 * The warm-up schedule is a test's: 3 copies a day per provider.
 */

const text = (from: string, to: string) => ({ From: { email: from }, To: [{ email: to }], Subject: "hi", ContentType: "Text", PlainContent: "hello" });

interface Seen {
  remoteAddress: string;
  ehlo: string;
  rcptTo: string[];
}

/** A peer that records which address connected and the EHLO name it gave. */
async function startEhloPeer(host: string, port: number): Promise<{ seen: Seen[]; stop(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    onData(stream, session, callback) {
      stream.resume();
      stream.on("end", () => {
        seen.push({ remoteAddress: session.remoteAddress, ehlo: session.hostNameAppearsAs, rcptTo: session.envelope.rcptTo.map((r) => r.address) });
        callback(null, "2.0.0 Ok");
      });
    },
  });
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(port, host, () => resolve()));
  return { seen, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("egress pools and warm-up caps", () => {
  let dns: FakeDns;
  let capped: SmtpSink;
  let other: SmtpSink;
  let ehlo: Awaited<ReturnType<typeof startEhloPeer>>;
  let app: TestApp;
  let a: { apiKey: string; accountId: string };
  let b: { apiKey: string; accountId: string };

  beforeAll(async () => {
    dns = await startFakeDns();
    capped = await startSmtpSink({ host: "127.0.0.20" });
    other = await startSmtpSink({ host: "127.0.0.21", port: capped.port });
    ehlo = await startEhloPeer("127.0.0.22", capped.port);
    dns.mx("capped.test", [{ name: "mx.capped.test", address: "127.0.0.20" }]);
    dns.mx("other.test", [{ name: "mx.other.test", address: "127.0.0.21" }]);
    dns.mx("ehlo.test", [{ name: "mx.ehlo.test", address: "127.0.0.22" }]);
    const dir = mkdtempSync(path.join(os.tmpdir(), "mailroom-warmup-"));
    const schedule = path.join(dir, "warmup.json");
    writeFileSync(schedule, JSON.stringify({ warmAfterDay: 30, default: [{ day: 1, daily: 3, hourly: 3 }] }));
    app = await startTestApp({
      MAILROOM_DELIVERY: "mx",
      MAILROOM_ALLOW_PRIVATE_MX: "true",
      MAILROOM_DNS_SERVERS: dns.address,
      MAILROOM_MX_PORT: String(capped.port),
      MAILROOM_WARMUP_FILE: schedule,
      // A copy deferred by a peer would come back in 5 s; those held for a cap wait for the next UTC day.
      MAILROOM_DELIVERY_RETRY_SCHEDULE: "5s",
    });
    const db = app.ctx.database;
    const warmup = await loadWarmupSchedule(schedule);
    await addEgressAddress(db, { address: "127.0.0.2", ehlo: "out2.egress.test", pool: "solo", warm: true }, warmup);
    await addEgressAddress(db, { address: "127.0.0.3", ehlo: "out3.egress.test", pool: "pair" }, warmup);
    await addEgressAddress(db, { address: "127.0.0.4", ehlo: "out4.egress.test", pool: "pair" }, warmup);
    a = await createTestAccount(app.ctx, { name: "Solo sender", domain: "a.example.com" });
    b = await createTestAccount(app.ctx, { name: "Pair sender", domain: "b.example.com" });
    await assignEgressPool(db, a.accountId, "solo");
    await assignEgressPool(db, b.accountId, "pair");
    // The workers read addresses and assignments back every 2 s.
    await new Promise((r) => setTimeout(r, 2500));
  });
  afterAll(async () => {
    await app?.stop();
    await capped?.stop();
    await other?.stop();
    await ehlo?.stop();
    await dns?.stop();
  });

  const statusOf = async (email: string) => {
    const { rows } = await app.ctx.database.pool.query<{ status: string; attempts: number; last_reply: string | null }>(
      "SELECT status, attempts, last_reply FROM message_recipients WHERE email = $1",
      [email],
    );
    return rows[0];
  };

  it("sends an account's every copy from its pool's only address, with that address's EHLO name", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await sendViaApi(app, a.apiKey, text("shop@a.example.com", `a${i}@capped.test`)));
    ids.push(await sendViaApi(app, a.apiKey, text("shop@a.example.com", "a@ehlo.test")));
    await waitFor("all five delivered", async () => {
      const events = (await Promise.all(ids.map((id) => eventsOf(app.ctx, id)))).flat();
      return events.filter((e) => e.type === "delivered").length === 5 ? true : undefined;
    });
    const fromA = capped.received.filter((m) => m.rcptTo[0]!.startsWith("a"));
    expect(fromA).toHaveLength(4);
    expect(new Set(fromA.map((m) => m.remoteAddress))).toEqual(new Set(["127.0.0.2"]));
    expect(ehlo.seen).toEqual([{ remoteAddress: "127.0.0.2", ehlo: "out2.egress.test", rcptTo: ["a@ehlo.test"] }]);
  });

  it("spends each address's cap to a provider, then holds the rest (deferred, no attempt spent), while other providers still get mail", async () => {
    const to = Array.from({ length: 8 }, (_, i) => `b${i}@capped.test`);
    for (const r of to) await sendViaApi(app, b.apiKey, text("shop@b.example.com", r));
    const statuses = await waitFor("six delivered, two held", async () => {
      const all = await Promise.all(to.map(statusOf));
      const delivered = all.filter((s) => s?.status === "delivered").length;
      const held = all.filter((s) => s?.status === "deferred" && s.last_reply?.startsWith("Held: warm-up cap:"));
      return delivered === 6 && held.length === 2 ? held : undefined;
    }, 30_000);
    for (const s of statuses) {
      expect(s!.attempts).toBe(0);
      expect(s!.last_reply).toMatch(/^Held: warm-up cap: 127\.0\.0\.[34] reached its warm-up day-1 cap of 3 a day to mx\.capped\.test \(and the other 1 of its pool theirs\); waits until \d{4}-\d\d-\d\dT00:00:00\.000Z$/);
    }
    const fromB = capped.received.filter((m) => m.rcptTo[0]!.startsWith("b"));
    expect(fromB.filter((m) => m.remoteAddress === "127.0.0.3")).toHaveLength(3);
    expect(fromB.filter((m) => m.remoteAddress === "127.0.0.4")).toHaveLength(3);
    // Never failed for it: six delivered events, no failed one; the held copies' attempts are recorded as deferrals.
    const { rows } = await app.ctx.database.pool.query<{ type: string; n: string }>(
      "SELECT type, count(*) AS n FROM events WHERE account_id = $1 AND type <> 'accepted' GROUP BY type",
      [b.accountId],
    );
    expect(Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]))).toEqual({ delivered: 6 });
    const held = await app.ctx.database.pool.query<{ n: string }>("SELECT count(*) AS n FROM delivery_attempts WHERE reply LIKE 'Held: warm-up cap:%'");
    expect(Number(held.rows[0]!.n)).toBeGreaterThanOrEqual(2);

    // Another provider: each address has its own caps there.
    await sendViaApi(app, b.apiKey, text("shop@b.example.com", "b@other.test"));
    await waitFor("b@other.test delivered", async () => ((await statusOf("b@other.test"))?.status === "delivered" ? true : undefined));
    expect(["127.0.0.3", "127.0.0.4"]).toContain(other.received[0]!.remoteAddress);

    // The capped addresses sent nothing more to that provider.
    await new Promise((r) => setTimeout(r, 3000));
    expect(capped.received.filter((m) => m.rcptTo[0]!.startsWith("b"))).toHaveLength(6);
    expect((await Promise.all(to.map(statusOf))).filter((s) => s?.status === "deferred")).toHaveLength(2);

    // What the operator sees: each address's volume against its cap (the counts flushed within 2 s).
    const view = await egressView(app.ctx.database, await loadWarmupSchedule(app.ctx.config.delivery.warmupFile));
    const three = view.addresses.find((x) => x.address === "127.0.0.3")!;
    expect(three).toMatchObject({ pool: "pair", ehloName: "out3.egress.test", warmupDay: 1, warm: false });
    expect(three.providers.find((p) => p.provider === "mx.capped.test")).toEqual({ provider: "mx.capped.test", hour: 3, day: 3, hourlyCap: 3, dailyCap: 3 });
    expect(view.addresses.find((x) => x.address === "127.0.0.2")).toMatchObject({ warm: true, caps: { hourly: null, daily: null } });
  }, 60_000);
});
