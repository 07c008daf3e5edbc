import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued, waitForEvent } from "../support/delivery-helpers";
import { submissionEnv } from "../support/submission";
import { startTestApp, type TestApp } from "../support/test-app";
import { runCli, runCliJson } from "./cli-support";

describe("mailroom smtp-test", () => {
  let app: TestApp;
  let ports: { port: number; tlsPort: number };
  let apiKey: string;
  let accountId: string;
  let databaseUrl: string;
  beforeAll(async () => {
    const s = await submissionEnv();
    ports = s;
    app = await startTestApp(s.env);
    databaseUrl = app.ctx.database.url;
    ({ apiKey, accountId } = await createTestAccount(app.ctx, { name: "SMTP test account" }));
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
  });

  it("sends through the STARTTLS port from the account's verified domain and prints the MessageID", async () => {
    const out = await runCliJson<{ messageId: string; response: string; from: string }>(
      ["smtp-test", "--to", "ann@example.org", "--port", String(ports.port), "--key", apiKey, "--account", accountId],
      { DATABASE_URL: databaseUrl },
    );
    expect(out.from).toBe("mailroom-test@example.com");
    expect(out.response).toBe(`250 2.0.0 OK ${out.messageId}`);
    await waitForEvent(app.ctx, out.messageId, "delivered", "ann@example.org");
  });

  it("sends over implicit TLS with MAILROOM_API_KEY, and reports a refusal in one line", async () => {
    const out = await runCliJson<{ messageId: string }>(["smtp-test", "--to", "bob@example.org", "--from", "shop@example.com", "--tls", "--port", String(ports.tlsPort)], {
      DATABASE_URL: databaseUrl,
      MAILROOM_API_KEY: apiKey,
    });
    await waitForEvent(app.ctx, out.messageId, "accepted", "bob@example.org");
    const bad = await runCli(["smtp-test", "--to", "bob@example.org", "--from", "shop@example.com", "--port", String(ports.port), "--key", "mr_wrong"], { DATABASE_URL: databaseUrl });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: The SMTP test failed on 127\.0\.0\.1:\d+: 535 5\.7\.8 /);
  });
});
