import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_MESSAGES } from "../../lib/contract/errors";
import { createApiKey } from "../../lib/domain/accounts/api-keys";
import { setAccountDailyCeiling } from "../../lib/domain/accounts/accounts";
import { addSenderDomain } from "../../lib/domain/accounts/sender-domains";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { runCliJson } from "./cli-support";

/**
 * Sending rules with no way around them: the delivery backlog's pushback
 * holds for scheduled sends and reschedules (docs/adr/0129), a key limited
 * to sender domains reaches neither another domain's scheduled messages nor
 * the account's templates (docs/contract.md §17.3), and the account-wide
 * daily ceiling holds whatever number of keys share it (docs/adr/0132).
 * No workers run: what is accepted stays waiting, so the backlog fills.
 */
const MAX_BACKLOG = 5;
const INSTANCE_CEILING = 3;

describe("sending rules with no way around them", { timeout: 120_000 }, () => {
  let app: TestApp;
  let accountId: string;
  let fullKey: string;
  let n = 0;
  const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
  const message = (from: string, extra: Record<string, unknown> = {}) => ({
    From: { email: from },
    To: [{ email: `reader${n++}@example.net` }],
    Subject: "Hello",
    ContentType: "HTML",
    HTMLContent: "<p>Hello</p>",
    ...extra,
  });
  const api = (key: string, method: string, path: string, body?: unknown) =>
    app.fetch(`/api/v1${path}`, { method, headers: bearer(key), ...(body !== undefined && { body: JSON.stringify(body) }) });
  const scheduleAs = async (key: string, from: string): Promise<string> => {
    const res = await api(key, "POST", "/email", message(from, { SendAt: inAnHour() }));
    expect(res.status).toBe(200);
    return ((await res.json()) as { MessageID: string }).MessageID;
  };
  const statusOf = async (id: string) => ((await (await api(fullKey, "GET", `/email/${id}`)).json()) as { Status: string }).Status;

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off", MAILROOM_MAX_BACKLOG: String(MAX_BACKLOG), MAILROOM_ACCOUNT_DAILY_LIMIT: String(INSTANCE_CEILING) });
    ({ apiKey: fullKey, accountId } = await createTestAccount(app.ctx, { name: "Two products" }));
    await addSenderDomain(app.ctx.database, accountId, "other.example", { verified: true });
    // This account sends more than the instance's ceiling: its own value, none.
    await setAccountDailyCeiling(app.ctx.database, accountId, 0);
  });
  afterAll(async () => {
    await app?.stop();
  });

  describe("a key limited to sender domains", () => {
    let limitedKey: string;
    let unlimitedSendKey: string;
    beforeAll(async () => {
      limitedKey = (await createApiKey(app.ctx.database, accountId, "shop only", { scope: "send", senderDomains: ["example.com"] })).apiKey;
      unlimitedSendKey = (await createApiKey(app.ctx.database, accountId, "any domain", { scope: "send" })).apiKey;
    });

    it("may not reschedule or cancel a scheduled message From another domain: 404, as another account's, and it stays scheduled", async () => {
      const other = await scheduleAs(fullKey, "news@other.example");
      const patched = await api(limitedKey, "PATCH", `/email/${other}`, { SendAt: inAnHour() + 60 });
      expect(patched.status).toBe(404);
      expect(await patched.json()).toEqual({ Errors: [{ Code: 404, Message: ERROR_MESSAGES[404] }] });
      const cancelled = await api(limitedKey, "POST", `/email/${other}/cancel`);
      expect(cancelled.status).toBe(404);
      expect(await statusOf(other)).toBe("scheduled");

      // Its own domain's messages, in any case of the From, it changes as before.
      const own = await scheduleAs(fullKey, "shop@Example.COM");
      expect((await api(limitedKey, "PATCH", `/email/${own}`, { SendAt: inAnHour() + 60 })).status).toBe(200);
      expect((await api(limitedKey, "POST", `/email/${own}/cancel`)).status).toBe(200);
      expect(await statusOf(own)).toBe("cancelled");
    });

    it("may not send with a template (sending a version to oneself reads it): 403 before the lookup; an unlimited send key may", async () => {
      const made = await api(fullKey, "POST", "/templates", { Name: "Other product", Subject: "Secret {{x}}", HTMLContent: "<p>internal text</p>" });
      expect(made.status).toBe(200);
      const { TemplateID } = (await made.json()) as { TemplateID: number };
      const templated = (extra: Record<string, unknown>) => ({ From: { email: "shop@example.com" }, To: [{ email: "me@example.net" }], SendAt: inAnHour(), ...extra });

      for (const id of [TemplateID, 999_999]) {
        const refused = await api(limitedKey, "POST", "/email", templated({ TemplateID: id, TemplateVersion: 1 }));
        expect(refused.status).toBe(403);
        const body = (await refused.json()) as { Errors: { Code: number; Field: string }[] };
        expect(body.Errors).toMatchObject([{ Code: 403, Field: "TemplateID" }]);
      }
      const batch = await api(limitedKey, "POST", "/email/batch", [templated({ TemplateID })]);
      expect(batch.status).toBe(200);
      expect(await batch.json()).toMatchObject([{ Errors: [{ Code: 403, Field: "TemplateID" }] }]);

      expect((await api(unlimitedSendKey, "POST", "/email", templated({ TemplateID }))).status).toBe(200);
    });
  });

  describe("the account-wide daily ceiling", () => {
    it("is shared by all of an account's keys: past it code 17, as the per-key day window", async () => {
      const { apiKey: first, accountId: shared } = await createTestAccount(app.ctx, { name: "Many keys", plan: "starter", domain: "many.example" });
      const second = (await createApiKey(app.ctx.database, shared, "second")).apiKey;
      const send = (key: string, recipients: number) =>
        api(key, "POST", "/email", { ...message("a@many.example", { SendAt: inAnHour() }), To: Array.from({ length: recipients }, (_, i) => ({ email: `r${n++}-${i}@example.net` })) });

      expect((await send(first, 2)).status).toBe(200);
      expect((await send(second, 1)).status).toBe(200);
      // Each key is far below starter's 500 a day; the account has used its 3.
      const refused = await send(second, 1);
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({ Errors: [{ Code: 17, Message: ERROR_MESSAGES[17] }] });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      const third = (await createApiKey(app.ctx.database, shared, "third")).apiKey;
      expect((await send(third, 1)).status).toBe(429);
    });

    it("is the account's own when set by `mailroom accounts set-daily-ceiling` (a number, or back to the instance's)", async () => {
      const { apiKey: first, accountId: own } = await createTestAccount(app.ctx, { name: "Own ceiling", domain: "own.example" });
      const set = await runCliJson<{ accountDailyLimit: number | null }>(["accounts", "set-daily-ceiling", own, "4"], { DATABASE_URL: app.ctx.config.databaseUrl! });
      expect(set.accountDailyLimit).toBe(4);
      const second = (await createApiKey(app.ctx.database, own, "second")).apiKey;
      const send = (key: string) => api(key, "POST", "/email", message("a@own.example", { SendAt: inAnHour() }));
      for (const key of [first, second, first, second]) expect((await send(key)).status).toBe(200);
      expect((await send(first)).status).toBe(429);
      const back = await runCliJson<{ accountDailyLimit: number | null }>(["accounts", "set-daily-ceiling", own, "default"], { DATABASE_URL: app.ctx.config.databaseUrl! });
      expect(back.accountDailyLimit).toBeNull();
    });
  });

  describe("the delivery backlog's pushback", () => {
    let scheduled: string;
    beforeAll(async () => {
      scheduled = await scheduleAs(fullKey, "shop@example.com");
      for (let i = 0; i < MAX_BACKLOG; i++) expect((await api(fullKey, "POST", "/email", message("shop@example.com"))).status).toBe(200);
      expect(await app.ctx.backlog.sample()).toBeGreaterThanOrEqual(MAX_BACKLOG);
    });

    it("refuses a SendAt a second ahead, and a batch of scheduled items, as it refuses one sent now", async () => {
      const soon = await api(fullKey, "POST", "/email", message("shop@example.com", { SendAt: Math.floor(Date.now() / 1000) + 1 }));
      expect(soon.status).toBe(429);
      expect(soon.headers.get("retry-after")).toBe("1");
      expect(await soon.json()).toEqual({ Errors: [{ Code: 429, Message: ERROR_MESSAGES[429] }] });
      const batch = await api(fullKey, "POST", "/email/batch", [message("shop@example.com", { SendAt: inAnHour() })]);
      expect(batch.status).toBe(429);
    });

    it("refuses a PATCH of a scheduled message to a time in the past (a release now), which stays scheduled", async () => {
      const res = await api(fullKey, "PATCH", `/email/${scheduled}`, { SendAt: 0 });
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(await res.json()).toEqual({ Errors: [{ Code: 429, Message: ERROR_MESSAGES[429] }] });
      expect(await statusOf(scheduled)).toBe("scheduled");
      // Cancelling takes work away: still answered.
      expect((await api(fullKey, "POST", `/email/${scheduled}/cancel`)).status).toBe(200);
    });
  });
});
