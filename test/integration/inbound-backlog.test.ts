import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getInboundAddress } from "../../lib/inbound/inbound-server";
import { startWorkers, type RunningWorkers } from "../../lib/workers/start-workers";
import type { TestApp } from "../support/test-app";
import { noSenderDns, startRoutedApp, until, type Receiver } from "./webhooks-helpers";

/**
 * docs/contract.md §13.3: past MAILROOM_INBOUND_MAX_BACKLOG received
 * messages waiting to be posted, mail for a route is answered 451 4.3.2 at
 * RCPT and nothing is stored; once the posts catch up, it is received again.
 * Real SMTP to the inbound port, a real HTTP receiver. Posting is paused (no
 * workers) until the test starts it.
 */
const MAX = 3;

describe("the inbound backlog pushes receiving back", () => {
  let app: TestApp;
  let receiver: Receiver;
  let workers: RunningWorkers | undefined;
  let accountId: string;

  beforeAll(async () => {
    ({ app, receiver, accountId } = await startRoutedApp(
      { MAILROOM_WORKERS: "off", MAILROOM_INBOUND_MAX_BACKLOG: String(MAX), MAILROOM_INBOUND_CONNECTIONS_PER_MINUTE: "10000" },
      { name: "Inbound backlog", domain: "backlog-in.example" },
      "in@backlog-in.example",
    ));
  }, 120_000);
  afterAll(async () => {
    await workers?.stop();
    await app?.stop();
    await receiver?.close();
  });

  const send = async (to: string, subject: string) => {
    const address = getInboundAddress(app.ctx)!;
    const t = nodemailer.createTransport({ host: address.host, port: address.port, secure: false, ignoreTLS: true });
    try {
      return await t.sendMail({ envelope: { from: "ann@sender.example", to: [to] }, from: "ann@sender.example", to, subject, text: "Hello" });
    } finally {
      t.close();
    }
  };
  const stored = async () =>
    (await app.ctx.database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM inbound_messages WHERE account_id = $1", [accountId])).rows[0]!.n;

  it("receives up to the maximum, then answers 451 4.3.2 at RCPT and stores nothing; unknown recipients are still 550", async () => {
    for (let i = 0; i < MAX; i++) expect((await send("in@backlog-in.example", `message ${i}`)).response).toMatch(/^250 /);
    expect(await app.ctx.inboundBacklog.sample()).toBe(MAX);
    expect(await app.ctx.httpMetrics.registry.getSingleMetricAsString("mailroom_inbound_backlog_messages")).toMatch(new RegExp(`^mailroom_inbound_backlog_messages ${MAX}$`, "m"));

    const refused = await send("in@backlog-in.example", "one too many").then(
      () => undefined,
      (err: { responseCode?: number; response?: string }) => err,
    );
    expect(refused?.responseCode).toBe(451);
    expect(refused?.response).toMatch(/^451 4\.3\.2 /);
    expect(await stored()).toBe(MAX);

    // The refusal is for mail that would wait for a post; a recipient nobody routes is refused for what it is.
    const unknown = await send("nobody@backlog-in.example", "no route").then(
      () => undefined,
      (err: { responseCode?: number }) => err,
    );
    expect(unknown?.responseCode).toBe(550);
  });

  it("receives again once the posts have caught up", async () => {
    workers = await startWorkers(app.ctx, { workers: true, inbound: false, maintenance: false, inboundPost: { authResolver: noSenderDns } });
    await receiver.waitFor(MAX, 30_000);
    await until(() => app.ctx.inboundBacklog.sample(), (n) => n === 0, 30_000);
    expect((await send("in@backlog-in.example", "after the drain")).response).toMatch(/^250 /);
    const [, , , last] = await receiver.waitFor(MAX + 1, 30_000);
    expect((last!.json as { Subject: string }).Subject).toBe("after the drain");
    expect(await stored()).toBe(MAX + 1);
  });
});
