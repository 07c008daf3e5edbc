import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount } from "../support/fixtures";
import { eventsOf, expectNoRecipientLeftQueued, sendViaApi, waitFor } from "../support/delivery-helpers";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import { startProviderPeers, type ProviderPeer } from "../support/provider-peers";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * A shaping file's connection members in the running app (MX mode on the fake internet,
 * docs/delivery.md): `messagesPerConnection` keeps under a provider's per-connection limit so it
 * never has to refuse, and `requireTls` sends nothing in clear to an MX that offers no STARTTLS
 * (the provider peers offer none): the copy is deferred with the reason, never delivered.
 */
const text = (to: string) => ({ From: { email: "shop@example.com" }, To: [{ email: to }], Subject: "hi", ContentType: "Text", PlainContent: "hello" });

describe("connection rules from the shaping file", () => {
  let dns: FakeDns;
  let peers: ProviderPeer[];
  let app: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    dns = await startFakeDns();
    // percon.test closes (421) a connection's fourth MAIL FROM; clear.test accepts anything, in clear.
    peers = await startProviderPeers([{ kind: "per-connection", messages: 3 }, { kind: "accept" }], 60);
    dns.mx("percon.test", [{ name: "mx.percon.test", address: peers[0]!.host }]);
    dns.mx("clear.test", [{ name: "mx.clear.test", address: peers[1]!.host }]);
    const dir = mkdtempSync(path.join(tmpdir(), "mailroom-shaping-"));
    const shapingFile = path.join(dir, "shaping.json");
    writeFileSync(shapingFile, JSON.stringify({ "percon.test": { messagesPerConnection: 3, maxConnections: 1 }, "clear.test": { requireTls: true } }));
    app = await startTestApp({
      MAILROOM_DELIVERY: "mx",
      MAILROOM_ALLOW_PRIVATE_MX: "true",
      MAILROOM_DNS_SERVERS: dns.address,
      MAILROOM_MX_PORT: String(peers[0]!.port),
      MAILROOM_SHAPING_FILE: shapingFile,
      MAILROOM_DELIVERY_MAX_AGE: "20s",
      MAILROOM_DELIVERY_RETRY_SCHEDULE: "2s",
    });
    ({ apiKey } = await createTestAccount(app.ctx));
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx, 60_000);
    await app?.stop();
    for (const p of peers ?? []) await p.stop();
    await dns?.stop();
  });

  it("messagesPerConnection under the peer's limit: 12 messages on 4 connections, none refused", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await sendViaApi(app, apiKey, text(`r${i}@percon.test`)));
    await waitFor("all delivered", async () => {
      const all = (await Promise.all(ids.map((id) => eventsOf(app.ctx, id)))).flat();
      return all.filter((e) => e.type === "delivered").length === 12 ? true : undefined;
    }, 60_000);
    const peer = peers[0]!;
    expect(peer.attempts.filter((a) => a.code !== 250)).toEqual([]);
    expect(peer.connections.length).toBeGreaterThanOrEqual(4);
  });

  it("requireTls: an MX without STARTTLS receives nothing; the recipient is deferred saying why, then fails at the maximum age", async () => {
    const id = await sendViaApi(app, apiKey, text("someone@clear.test"));
    const { rows } = await waitFor("a deferral", async () => {
      const r = await app.ctx.database.pool.query<{ outcome: string; enhanced_code: string; reply: string }>(
        "SELECT outcome, enhanced_code, reply FROM delivery_attempts WHERE message_id = $1 ORDER BY id",
        [id],
      );
      return r.rows.length > 0 ? r : undefined;
    });
    expect(rows[0]).toMatchObject({ outcome: "deferred", enhanced_code: "4.7.10", reply: expect.stringContaining("TLS required") });
    const failed = await waitFor("the final event", async () => (await eventsOf(app.ctx, id)).find((e) => e.type === "failed" || e.type === "delivered"), 60_000);
    expect(failed.type).toBe("failed");
    expect(failed.reason).toContain("TLS required");
    expect(peers[1]!.delivered).toEqual([]);
  });
});
