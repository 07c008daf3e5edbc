import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../../lib/storage/embedded";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { insertMessage, logTestEvents, registerWebhook, sleep, startReceiver, type Receiver } from "./webhooks-helpers";

/** The notification workers ride out a PostgreSQL restart: no crash, and events after it still notify. */
describe("webhook workers across a PostgreSQL restart", () => {
  let dataDir: string;
  let pgServer: EmbeddedDatabase;
  let app: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-webhooks-pg-restart-"));
    pgServer = await startEmbeddedPostgres({ dataDir, port: 0 });
    app = await startTestApp({ DATABASE_URL: pgServer.url });
    receiver = await startReceiver();
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    await pgServer?.stop();
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("notifies events logged after the database came back", async () => {
    const account = await createTestAccount(app.ctx);
    await registerWebhook(app, account.apiKey, "delivery", `${receiver.url}/pg-restart`);
    const messageId = await insertMessage(app, account.accountId);
    await logTestEvents(app, [{ accountId: account.accountId, messageId, type: "delivered", recipient: "before@example.net" }]);
    await receiver.waitFor(1);

    const port = Number(new URL(pgServer.url).port);
    await pgServer.stop();
    // Down long enough for the dispatcher's listener and pool to lose their connections (they do
    // at the stop) and try again at least once, not a fixed 3 s.
    await sleep(1_000);
    pgServer = await startEmbeddedPostgres({ dataDir, port });
    expect(Number(new URL(pgServer.url).port)).toBe(port);

    // The pool may hand out a dead connection once; the caller retries like any client would.
    for (let i = 0; ; i++) {
      try {
        await logTestEvents(app, [{ accountId: account.accountId, messageId, type: "delivered", recipient: "after@example.net" }]);
        break;
      } catch (err) {
        if (i > 20) throw err;
        await sleep(250);
      }
    }
    const reqs = await receiver.waitFor(2, 30_000);
    expect((reqs[1]!.json as { EventData: { To: string } }).EventData.To).toBe("after@example.net");
  });
});
