import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorEnvelopeSchema } from "../../lib/contract/errors";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../../lib/storage/embedded";
import { bearer, createTestAccount } from "../support/fixtures";
import { waitFor } from "../support/processes";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Faults: PostgreSQL restarted under load. While it is down the API
 * answers 503 with the JSON envelope, promptly (never hangs); once it is back
 * the app reconnects by itself, and every message that got a 200 is stored.
 * The test owns its PostgreSQL server so that stopping it touches nothing else.
 */
describe("PostgreSQL restart under load", () => {
  let dataDir: string;
  let pgServer: EmbeddedDatabase;
  let app: TestApp;
  let headers: Record<string, string>;
  let port: number;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-pg-restart-"));
    pgServer = await startEmbeddedPostgres({ dataDir, port: 0 });
    port = Number(new URL(pgServer.url).port);
    app = await startTestApp({ DATABASE_URL: pgServer.url, MAILROOM_WORKERS: "off" });
    headers = bearer((await createTestAccount(app.ctx)).apiKey);
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    await pgServer?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers 503 envelopes while the database is down and recovers after", async () => {
    const outcomes: { status: number; ms: number; id?: string; phase: string }[] = [];
    let phase = "before";
    let running = true;
    const body = JSON.stringify({
      From: { email: "a@example.com" },
      To: [{ email: "b@example.org" }],
      Subject: "restart",
      ContentType: "Text",
      PlainContent: "hi",
    });
    const load = (async () => {
      while (running) {
        const started = Date.now();
        const currentPhase = phase;
        const res = await app.fetch("/api/v1/email", { method: "POST", headers, body, signal: AbortSignal.timeout(15_000) });
        const json = (await res.json()) as { MessageID?: string };
        if (res.status !== 200) expect(errorEnvelopeSchema.safeParse(json).success).toBe(true);
        outcomes.push({ status: res.status, ms: Date.now() - started, id: json.MessageID, phase: currentPhase });
        const events = await app.fetch("/api/v1/events", { headers, signal: AbortSignal.timeout(15_000) });
        outcomes.push({ status: events.status, ms: Date.now() - started, phase: currentPhase });
        await events.text();
        // Answers come back instantly while the database is down: stay under the
        // request-rate limit (100/s per key) so that every answer is about the outage.
        await new Promise((r) => setTimeout(r, 25));
      }
    })();

    await waitFor("traffic before the restart", async () => outcomes.filter((o) => o.status === 200).length >= 10);
    phase = "stopping"; // requests in flight now may still succeed
    await pgServer.stop({ force: true });
    phase = "down";
    // Down until the load has had answers of the outage (they come at once) and for at least a
    // second, the pool's reconnect attempts included, instead of a fixed 4 s.
    const downSince = Date.now();
    await waitFor("answers while the database is down", async () => Date.now() - downSince >= 1_000 && outcomes.filter((o) => o.phase === "down").length >= 10, 30_000, 50);
    phase = "restarting";
    pgServer = await startEmbeddedPostgres({ dataDir, port });
    expect(Number(new URL(pgServer.url).port)).toBe(port);
    phase = "after";
    await waitFor("successful sends after the restart", async () => outcomes.filter((o) => o.phase === "after" && o.status === 200).length >= 10, 30_000);
    running = false;
    await load;

    const down = outcomes.filter((o) => o.phase === "down");
    expect(down.length).toBeGreaterThan(0);
    expect(down.every((o) => o.status === 503)).toBe(true);
    expect(outcomes.some((o) => o.status === 500)).toBe(false);
    // Never hangs: every answer came within the pool's connect timeout plus slack.
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(8000);

    // Nothing acknowledged is lost.
    const acknowledged = outcomes.filter((o) => o.id).map((o) => o.id!);
    const { rows } = await app.ctx.database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM messages WHERE id = ANY($1::uuid[])", [acknowledged]);
    expect(rows[0]!.n).toBe(acknowledged.length);
  }, 120_000);
});
