import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiRequestError, createApiClient, type ApiClient } from "../../lib/api-client/client";
import type { EmailRequest } from "../../lib/contract/email";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/** lib/api-client's methods for scheduled sends and batches (docs/contract.md §15), against the real API. */
describe("API client: scheduled sends and batches", () => {
  let app: TestApp;
  let client: ApiClient;
  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    client = createApiClient({ baseUrl: app.url, apiKey: (await createTestAccount(app.ctx)).apiKey });
  });
  afterAll(async () => {
    await app?.stop();
  });

  const email = (to: string, extra: Partial<EmailRequest> = {}): EmailRequest => ({
    From: { email: "shop@example.com" },
    To: [{ email: to }],
    Subject: "Reminder",
    ContentType: "Text",
    PlainContent: "Tomorrow at nine.",
    ...extra,
  });

  it("sends a batch, lists, reschedules and cancels its scheduled messages, and surfaces the 409", async () => {
    const at = Math.floor(Date.now() / 1000) + 3600;
    const results = await client.sendBatch([email("a@example.org", { SendAt: at }), email("b@example.org", { Subject: "" }), email("c@example.org", { SendAt: at + 60 })]);
    expect(results[1]).toEqual({ Errors: [{ Code: 8, Message: "Missing Subject", Field: "Subject" }] });
    const [a, , c] = results.map((r) => ("MessageID" in r ? r.MessageID : ""));
    expect((await client.listScheduledEmails()).Messages.map((m) => [m.MessageID, m.SendAt, m.Recipients])).toEqual([
      [a, at, ["a@example.org"]],
      [c, at + 60, ["c@example.org"]],
    ]);
    expect(await client.rescheduleEmail(c!, at - 60)).toEqual({ MessageID: c, Status: "scheduled", SendAt: at - 60 });
    expect((await client.listScheduledEmails()).Messages.map((m) => m.MessageID)).toEqual([c, a]);
    expect(await client.cancelEmail(a!)).toEqual({ MessageID: a, Status: "cancelled", SendAt: at });
    expect(await client.getEmailSchedule(a!)).toMatchObject({ Status: "cancelled" });
    const again = await client.cancelEmail(a!).catch((err: unknown) => err);
    expect(again).toBeInstanceOf(ApiRequestError);
    expect((again as ApiRequestError).status).toBe(409);
  });
});
