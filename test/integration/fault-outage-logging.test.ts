import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../lib/domain/accounts/accounts";
import { openDatabase } from "../../lib/storage/database";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../../lib/storage/embedded";
import { bearer } from "../support/fixtures";
import { startAppProcess, waitFor, type Proc } from "../support/processes";
import { startReceiver, type Receiver } from "./webhooks-helpers";

/**
 * The log of a database outage (lib/storage/outage-log.ts, docs/adr/0008):
 * PostgreSQL stopped and started again under traffic (the API, the delivery
 * loop and webhook notifications of one app process with inline workers).
 * An operator alerting on error lines is paged once per component, not per
 * request: every level-50 line is the first of its component in the outage,
 * the 503s' access lines are at warn, and when the database answers again
 * one warn line per component sums up the count, the API's equal to the
 * 503s the client saw.
 */
interface LogLine {
  level: number;
  msg: string;
  component?: string;
  count?: number;
  status?: number;
}

describe("the log of a PostgreSQL restart", () => {
  let dataDir: string;
  let pgServer: EmbeddedDatabase;
  let app: (Proc & { url: string }) | undefined;
  let receiver: Receiver;
  let output = "";

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-outage-log-"));
    pgServer = await startEmbeddedPostgres({ dataDir, port: 0 });
    receiver = await startReceiver();
  }, 120_000);
  afterAll(async () => {
    await app?.kill();
    await pgServer?.stop({ force: true });
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("logs one error line per component, the 503s at warn, and a warn summary with the count when it is back", async () => {
    const port = Number(new URL(pgServer.url).port);
    const database = openDatabase(pgServer.url, { max: 1 });
    // The app migrates; the account needs the schema: start the app first.
    app = await startAppProcess({ DATABASE_URL: pgServer.url, MAILROOM_WORKERS: "inline", MAILROOM_ALLOW_PRIVATE_WEBHOOKS: "true", MAILROOM_SANDBOX_PORT: "0", LOG_LEVEL: "info" });
    app.child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
    const { apiKey } = await createAccount(database, { name: "Outage", plan: "unlimited", domain: "example.com", verified: true });
    await database.close();
    const headers = bearer(apiKey);
    const hook = await fetch(`${app.url}/api/v1/webhooks`, { method: "POST", headers, body: JSON.stringify({ Event: "delivery", WebhookURL: `${receiver.url}/outage` }) });
    expect(hook.status).toBe(200);

    const body = JSON.stringify({ From: { email: "a@example.com" }, To: [{ email: "b@example.org" }], Subject: "outage", ContentType: "Text", PlainContent: "hi" });
    const statuses: number[] = [];
    let running = true;
    const load = (async () => {
      while (running) {
        for (const req of [
          () => fetch(`${app!.url}/api/v1/email`, { method: "POST", headers, body, signal: AbortSignal.timeout(15_000) }),
          () => fetch(`${app!.url}/api/v1/events`, { headers, signal: AbortSignal.timeout(15_000) }),
        ]) {
          const res = await req();
          await res.text();
          statuses.push(res.status);
          if (res.status === 503) expect(res.headers.get("retry-after")).toBe("2");
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    await waitFor("traffic and notifications before the restart", async () => statuses.filter((s) => s === 200).length >= 20 && receiver.requests.length >= 3, 30_000);
    await pgServer.stop({ force: true });
    // Down until the client has seen more than the 20 503s asserted below and for at least 1.5 s,
    // so that the job loops and the webhook dispatcher, which retry about every second, meet the outage too.
    const downSince = Date.now();
    const outageStart = statuses.length;
    await waitFor("503s while the database is down", async () => Date.now() - downSince >= 1_500 && statuses.slice(outageStart).filter((s) => s === 503).length > 25, 30_000, 50);
    pgServer = await startEmbeddedPostgres({ dataDir, port });
    const outageEnd = statuses.length;
    await waitFor("successful sends after the restart", async () => statuses.slice(outageEnd).filter((s) => s === 200).length >= 20, 30_000);
    // The API's summary comes once the database answered for a second without a failure.
    await waitFor("the outage summary", async () => output.includes("requests answered 503 during the outage"), 15_000);
    running = false;
    await load;

    const lines = output.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as LogLine);
    const answered503 = statuses.filter((s) => s === 503).length;
    expect(answered503).toBeGreaterThan(20);
    expect(statuses).not.toContain(500);

    // Errors: a handful, each the first of its component in this outage.
    const errors = lines.filter((l) => l.level >= 50);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.length).toBeLessThanOrEqual(5);
    for (const e of errors) expect(e.msg).toMatch(/^database unavailable \((api|smtp|webhooks|delivery|jobs|inbound|sandbox)\)/);
    expect(new Set(errors.map((e) => e.component)).size).toBe(errors.length);
    expect(errors.map((e) => e.component)).toContain("api");

    // The 503s' access lines at warn, none at error.
    const accessLines503 = lines.filter((l) => l.msg === "request" && l.status === 503);
    expect(accessLines503.length).toBe(answered503);
    expect(accessLines503.every((l) => l.level === 40)).toBe(true);

    // The summary: one warn line per component, the API's count the 503s the client saw.
    const summaries = lines.filter((l) => / during the outage \(/.test(l.msg));
    expect(summaries.every((l) => l.level === 40)).toBe(true);
    const api = summaries.filter((l) => l.component === "api");
    expect(api).toHaveLength(1);
    expect(api[0]!.count).toBe(answered503);
    expect(api[0]!.msg).toMatch(new RegExp(`^database unavailable: ${answered503} requests answered 503 during the outage`));
    // Every component that logged an error line is summed up.
    expect(new Set(summaries.map((l) => l.component))).toEqual(new Set(errors.map((e) => e.component)));
  }, 180_000);
});
