import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateApiKey, createApiKeyAuthCache, revokeApiKey } from "../../lib/domain/accounts/api-keys";
import type { Queryable } from "../../lib/storage/database";
import { setAccountStatus } from "../../lib/domain/accounts/accounts";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

const err = (Code: number, Message: string) => ({ Errors: [{ Code, Message }] });

describe("authentication (docs/contract.md §3)", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const endpoints: [string, string][] = [
    ["POST", "/api/v1/email"],
    ["GET", "/api/v1/events"],
    ["GET", "/api/v1/webhooks"],
    ["POST", "/api/v1/webhooks"],
    ["DELETE", "/api/v1/webhooks/1"],
    ["GET", "/api/v1/stats?StartDate=0&EndDate=10"],
  ];

  it.each(endpoints)("%s %s: no or malformed Authorization → 401 code 1", async (method, path) => {
    for (const auth of [undefined, "", "Bearer", "Bearer ", "Basic abc", "bearer"]) {
      const res = await app.fetch(path, { method, headers: auth === undefined ? {} : { Authorization: auth }, body: method === "POST" ? "{}" : undefined });
      expect(res.status, String(auth)).toBe(401);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(err(1, "Missing SenderAPIKey"));
    }
  });

  it.each(endpoints)("%s %s: unknown key → 401 code 13", async (method, path) => {
    const res = await app.fetch(path, { method, headers: bearer("mr_not-a-real-key"), body: method === "POST" ? "{}" : undefined });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(err(13, "Invalid sender API key"));
  });

  it("a revoked key → 13; a suspended account → 12", async () => {
    const a = await createTestAccount(app.ctx, { name: "revoked" });
    expect((await app.fetch("/api/v1/events", { headers: bearer(a.apiKey) })).status).toBe(200);
    await revokeApiKey(app.ctx.database, a.apiKeyId);
    // What the dashboard does after it revokes (lib/dashboard/settings.ts); another process waits out the cache's 5 s.
    app.ctx.apiKeyAuth.results.clear();
    const res = await app.fetch("/api/v1/events", { headers: bearer(a.apiKey) });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(err(13, "Invalid sender API key"));

    const b = await createTestAccount(app.ctx, { name: "suspended" });
    await setAccountStatus(app.ctx.database, b.accountId, "suspended");
    app.ctx.apiKeyAuth.results.clear();
    for (const [method, path] of endpoints) {
      const r = await app.fetch(path, { method, headers: bearer(b.apiKey), body: method === "POST" ? "{}" : undefined });
      expect(r.status).toBe(401);
      expect(await r.json()).toEqual(err(12, "Invalid user"));
    }
  });

  it("accepts the scheme in any case and surrounding spaces", async () => {
    const a = await createTestAccount(app.ctx, { name: "case" });
    const res = await app.fetch("/api/v1/events", { headers: { Authorization: `bearer   ${a.apiKey}  ` } });
    expect(res.status).toBe(200);
  });

  it("a burst of requests with one key not in the cache waits for one lookup, not one each", async () => {
    const { apiKey, accountId } = await createTestAccount(app.ctx, { name: "Burst", domain: "burst.example" });
    let selects = 0;
    // The real database, with its select calls counted.
    const db = new Proxy(app.ctx.database.db, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop !== "select" || typeof value !== "function") return value;
        return (...args: unknown[]) => {
          selects++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const q = { ...app.ctx.database, db } as unknown as Queryable;
    const cache = createApiKeyAuthCache();
    const results = await Promise.all(Array.from({ length: 50 }, () => authenticateApiKey(q, `Bearer ${apiKey}`, cache)));
    expect(results.every((r) => r.ok && r.key.accountId === accountId)).toBe(true);
    expect(selects).toBe(1);
    expect(cache.lookups.size).toBe(0);
    // An unknown key's burst is one lookup too, and its answer is cached like any other.
    const unknown = await Promise.all(Array.from({ length: 20 }, () => authenticateApiKey(q, "Bearer mr_not-a-real-key-either", cache)));
    expect(unknown.every((r) => !r.ok && r.code === 13)).toBe(true);
    expect(selects).toBe(2);
  });
});
