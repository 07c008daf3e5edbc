import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorEnvelopeSchema } from "../../lib/contract/errors";
import { createWebhookResponseSchema, deleteWebhookResponseSchema, listWebhooksResponseSchema, NEVER_CALLED_AT } from "../../lib/contract/webhooks";
import type { CreatedAccount } from "../../lib/domain/accounts/accounts";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { listWebhooksOf, registerWebhook } from "./webhooks-helpers";

describe("webhook registration API (POST, GET, DELETE /webhooks)", () => {
  let app: TestApp;
  let account: CreatedAccount;
  let other: CreatedAccount;

  beforeAll(async () => {
    app = await startTestApp();
    account = await createTestAccount(app.ctx, { name: "Registrations" });
    other = await createTestAccount(app.ctx, { name: "Someone else" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  const post = (key: string, body: unknown, raw?: string) =>
    app.fetch("/api/v1/webhooks", { method: "POST", headers: bearer(key), body: raw ?? JSON.stringify(body) });

  it("creates a webhook and lists it exactly as docs/contract.md §9.2 renders it", async () => {
    const before = Date.now();
    const res = await post(account.apiKey, { Event: "delivery", WebhookURL: "https://hooks.example.net/mailroom" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const created = createWebhookResponseSchema.parse(await res.json());
    expect(Number.isInteger(created.NewWebhookID)).toBe(true);

    const list = await app.fetch("/api/v1/webhooks", { headers: bearer(account.apiKey) });
    expect(list.status).toBe(200);
    const body = listWebhooksResponseSchema.parse(await list.json());
    const hook = body.Webhooks.find((w) => w.WebhookID === String(created.NewWebhookID))!;
    expect(hook).toEqual({
      WebhookID: String(created.NewWebhookID),
      CreatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      UpdatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      Status: "Enabled",
      WebhookURL: "https://hooks.example.net/mailroom",
      Event: "delivery",
      LastResponseCode: "0",
      LastResponseBody: "",
      LastResponseAt: NEVER_CALLED_AT,
      LastResponseTryCounter: "0",
    });
    expect(Object.keys(hook)).toEqual([
      "WebhookID",
      "CreatedAt",
      "UpdatedAt",
      "Status",
      "WebhookURL",
      "Event",
      "LastResponseCode",
      "LastResponseBody",
      "LastResponseAt",
      "LastResponseTryCounter",
    ]);
    expect(Date.parse(hook.CreatedAt)).toBeGreaterThanOrEqual(before - 5_000);
  });

  it("accepts both vocabularies and lists the Event back exactly as given, ordered by WebhookID", async () => {
    const fresh = await createTestAccount(app.ctx, { name: "Vocabulary" });
    const events = ["bounce", "click", "open", "unsubscribe", "complaint", "delivery", "delivered", "bounced", "opened", "clicked", "unsubscribed", "complained"];
    const ids: number[] = [];
    for (const e of events) ids.push(await registerWebhook(app, fresh.apiKey, e, `http://receiver.example.net/${e}`));
    const list = await listWebhooksOf(app, fresh.apiKey);
    expect(list.map((w) => w.Event)).toEqual(events);
    expect(list.map((w) => Number(w.WebhookID))).toEqual([...ids].sort((a, b) => a - b));
  });

  it("refuses an unknown Event, a bad WebhookURL, and reports both with Field, in request order", async () => {
    const cases: [unknown, string[]][] = [
      [{ Event: "sent", WebhookURL: "https://x.example.net/" }, ["Event"]],
      [{ Event: "Delivery", WebhookURL: "https://x.example.net/" }, ["Event"]],
      [{ WebhookURL: "https://x.example.net/" }, ["Event"]],
      [{ Event: 3, WebhookURL: "https://x.example.net/" }, ["Event"]],
      [{ Event: "open" }, ["WebhookURL"]],
      [{ Event: "open", WebhookURL: "ftp://x.example.net/" }, ["WebhookURL"]],
      [{ Event: "open", WebhookURL: "/relative/path" }, ["WebhookURL"]],
      [{ Event: "open", WebhookURL: "javascript:alert(1)" }, ["WebhookURL"]],
      [{ Event: "open", WebhookURL: `https://x.example.net/${"a".repeat(2030)}` }, ["WebhookURL"]],
      [{ Event: "open", WebhookURL: 42 }, ["WebhookURL"]],
      [{ Event: "nope", WebhookURL: "nope" }, ["Event", "WebhookURL"]],
    ];
    for (const [body, fields] of cases) {
      const res = await post(account.apiKey, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      const env = errorEnvelopeSchema.parse(await res.json());
      expect(env.Errors.map((e) => e.Field)).toEqual(fields);
      expect(env.Errors.every((e) => e.Code === 422 && e.Message === "Invalid request parameters")).toBe(true);
    }
    // A URL of exactly 2048 characters is fine.
    const url = `https://x.example.net/${"a".repeat(2048 - "https://x.example.net/".length)}`;
    expect(url.length).toBe(2048);
    expect((await post(account.apiKey, { Event: "open", WebhookURL: url })).status).toBe(200);
  });

  it("answers 422 for malformed JSON and bodies that are not objects", async () => {
    for (const raw of ["{not json", "[]", '"delivery"', "null", ""]) {
      const res = await post(account.apiKey, undefined, raw);
      expect(res.status, raw).toBe(422);
      expect(errorEnvelopeSchema.parse(await res.json()).Errors[0]!.Code).toBe(422);
    }
  });

  it("requires authentication", async () => {
    const res = await app.fetch("/api/v1/webhooks");
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ Errors: [{ Code: 1, Message: "Missing SenderAPIKey" }] });
  });

  it("deletes a webhook with {} and answers 404 once it is gone", async () => {
    const id = await registerWebhook(app, account.apiKey, "open", "https://x.example.net/delete-me");
    const res = await app.fetch(`/api/v1/webhooks/${id}`, { method: "DELETE", headers: { Authorization: `Bearer ${account.apiKey}` } });
    expect(res.status).toBe(200);
    expect(deleteWebhookResponseSchema.parse(await res.json())).toEqual({});
    expect((await listWebhooksOf(app, account.apiKey)).some((w) => w.WebhookID === String(id))).toBe(false);
    const again = await app.fetch(`/api/v1/webhooks/${id}`, { method: "DELETE", headers: bearer(account.apiKey) });
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ Errors: [{ Code: 404, Message: "Resource not found" }] });
  });

  it("accepts a trailing slash on every webhook path", async () => {
    const create = await app.fetch("/api/v1/webhooks/", {
      method: "POST",
      headers: bearer(account.apiKey),
      body: JSON.stringify({ Event: "click", WebhookURL: "https://x.example.net/slash" }),
    });
    expect(create.status).toBe(200);
    const { NewWebhookID } = (await create.json()) as { NewWebhookID: number };
    const list = await app.fetch("/api/v1/webhooks/", { headers: bearer(account.apiKey) });
    expect(list.status).toBe(200);
    const del = await app.fetch(`/api/v1/webhooks/${NewWebhookID}/`, { method: "DELETE", headers: bearer(account.apiKey) });
    expect(del.status).toBe(200);
  });

  it("refuses ids that are not positive integers with 422 and unknown ones with 404", async () => {
    for (const id of ["abc", "0", "-1", "1.5", "1e3", "%20"]) {
      const res = await app.fetch(`/api/v1/webhooks/${id}`, { method: "DELETE", headers: bearer(account.apiKey) });
      expect(res.status, id).toBe(422);
      expect(errorEnvelopeSchema.parse(await res.json()).Errors[0]!.Code).toBe(422);
    }
    for (const id of ["999999999", "99999999999999999999999"]) {
      const res = await app.fetch(`/api/v1/webhooks/${id}`, { method: "DELETE", headers: bearer(account.apiKey) });
      expect(res.status, id).toBe(404);
    }
  });

  it("keeps accounts apart: another account's webhook is invisible and cannot be deleted", async () => {
    const id = await registerWebhook(app, other.apiKey, "delivery", "https://other.example.net/hook");
    expect((await listWebhooksOf(app, account.apiKey)).some((w) => w.WebhookID === String(id))).toBe(false);
    const res = await app.fetch(`/api/v1/webhooks/${id}`, { method: "DELETE", headers: bearer(account.apiKey) });
    expect(res.status).toBe(404);
    expect((await listWebhooksOf(app, other.apiKey)).map((w) => w.WebhookID)).toContain(String(id));
  });

  it("caps an account at 100 webhooks, also when creations race", async () => {
    const capped = await createTestAccount(app.ctx, { name: "Capped" });
    const results = await Promise.all(
      Array.from({ length: 110 }, (_, i) => post(capped.apiKey, { Event: "open", WebhookURL: `https://x.example.net/${i}` })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 422)).toHaveLength(10);
    const refused = results.find((r) => r.status === 422)!;
    expect(errorEnvelopeSchema.parse(await refused.json()).Errors[0]!.Code).toBe(422);
    expect(await listWebhooksOf(app, capped.apiKey)).toHaveLength(100);
    // Deleting one makes room again.
    const first = (await listWebhooksOf(app, capped.apiKey))[0]!;
    await app.fetch(`/api/v1/webhooks/${first.WebhookID}`, { method: "DELETE", headers: bearer(capped.apiKey) });
    expect((await post(capped.apiKey, { Event: "open", WebhookURL: "https://x.example.net/again" })).status).toBe(200);
  });
});

describe("webhook registration with private destinations refused (the production default)", () => {
  let app: TestApp;
  let account: CreatedAccount;

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_ALLOW_PRIVATE_WEBHOOKS: "false" });
    account = await createTestAccount(app.ctx);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("refuses loopback, private, link-local, CGNAT, unique-local and mapped addresses with 422 on WebhookURL", async () => {
    for (const url of [
      "http://127.0.0.1:8080/hook",
      "http://localhost/hook",
      "http://10.0.0.5/hook",
      "http://192.168.1.10/hook",
      "http://172.20.0.1/hook",
      "http://169.254.169.254/latest/meta-data/",
      "http://100.64.1.1/hook",
      "http://0.0.0.0/hook",
      "http://2130706433/hook",
      "http://[::1]/hook",
      "http://[fd00::5]/hook",
      "http://[fe80::1]/hook",
      "http://[::ffff:127.0.0.1]/hook",
      "http://224.0.0.1/hook",
    ]) {
      const res = await app.fetch("/api/v1/webhooks", {
        method: "POST",
        headers: bearer(account.apiKey),
        body: JSON.stringify({ Event: "delivery", WebhookURL: url }),
      });
      expect(res.status, url).toBe(422);
      expect(await res.json()).toEqual({ Errors: [{ Code: 422, Message: "Invalid request parameters", Field: "WebhookURL" }] });
    }
    expect(await listWebhooksOf(app, account.apiKey)).toEqual([]);
  });

  it("accepts a public address, and a name that does not resolve yet (each attempt checks again)", async () => {
    const id = await registerWebhook(app, account.apiKey, "delivery", "https://93.184.216.34/hook");
    expect(id).toBeGreaterThan(0);
    expect(await registerWebhook(app, account.apiKey, "delivery", "https://hooks.invalid/mailroom")).toBeGreaterThan(id);
  });
});
