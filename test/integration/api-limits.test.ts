import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setAccountLimits } from "../../lib/domain/accounts/accounts";
import { createApiKey } from "../../lib/domain/accounts/api-keys";
import { addSuppression } from "../../lib/domain/accounts/suppressions";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

const message = (to: string[]) => ({
  From: { name: "Ann", email: "ann@example.com" },
  To: to,
  Subject: "Hi",
  ContentType: "Text",
  PlainContent: "Hi",
});

/** Fixed UTC windows: a burst must not straddle a minute boundary. */
async function awayFromMinuteEnd() {
  const s = new Date().getUTCSeconds();
  if (s >= 45) await new Promise((r) => setTimeout(r, (61 - s) * 1000));
}

/**
 * Runs a scenario that must fit in one fixed minute window; if a slow machine
 * let it straddle a boundary, it runs once more (each run uses its own account).
 */
async function inOneMinute(scenario: () => Promise<void>) {
  for (let attempt = 0; ; attempt++) {
    await awayFromMinuteEnd();
    const minute = Math.floor(Date.now() / 60_000);
    try {
      await scenario();
      return;
    } catch (err) {
      if (attempt > 0 || Math.floor(Date.now() / 60_000) === minute) throw err;
    }
  }
}

const minuteEnd = () => Math.floor(Date.now() / 60_000) * 60 + 60;

describe("sending limits (docs/contract.md §6)", () => {
  let app: TestApp;
  const send = (key: string, to: string[] | Record<string, unknown>) =>
    app.fetch("/api/v1/email", { method: "POST", headers: bearer(key), body: JSON.stringify(Array.isArray(to) ? message(to) : to) });
  const used = async (keyId: string) =>
    Object.fromEntries(
      (await app.ctx.database.pool.query<{ window_kind: string; used: number }>("SELECT window_kind, used FROM limit_counters WHERE api_key_id = $1", [keyId])).rows.map(
        (r) => [r.window_kind, r.used],
      ),
    );

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("admits exactly the trial minute limit (10) of concurrent requests; the rest get 429 with Retry-After", async () => {
    await inOneMinute(async () => {
      const a = await createTestAccount(app.ctx, { plan: "trial" });
      const responses = await Promise.all(Array.from({ length: 16 }, (_, i) => send(a.apiKey, [`r${i}@example.net`])));
      const ok = responses.filter((r) => r.status === 200);
      const refused = responses.filter((r) => r.status === 429);
      expect(ok).toHaveLength(10);
      expect(refused).toHaveLength(6);
      const end = minuteEnd();
      for (const r of refused) {
        expect(await r.json()).toEqual({ Errors: [{ Code: 429, Message: "Too many requests" }] });
        const retryAfter = Number(r.headers.get("retry-after"));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        expect(Math.abs(Math.floor(Date.now() / 1000) + retryAfter - end)).toBeLessThanOrEqual(2);
        expect(r.headers.get("x-ratelimit-limit")).toBe("10");
        expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
        expect(r.headers.get("x-ratelimit-reset")).toBe(String(end));
      }
      const remaining = ok.map((r) => Number(r.headers.get("x-ratelimit-remaining"))).sort((x, y) => x - y);
      expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      for (const r of ok) expect(r.headers.get("x-ratelimit-limit")).toBe("10");
      // Refused requests consumed nothing and stored nothing.
      expect(await used(a.apiKeyId)).toEqual({ minute: 10, hour: 10, day: 10 });
      const { rows } = await app.ctx.database.pool.query("SELECT count(*)::int AS n FROM messages WHERE account_id = $1", [a.accountId]);
      expect(rows[0].n).toBe(10);
    });
  });

  it("counts each recipient; a request that does not fit consumes nothing", async () => {
    await inOneMinute(async () => {
      const a = await createTestAccount(app.ctx, { plan: "trial", name: "recipients" });
      await setAccountLimits(app.ctx.database, a.accountId, { perMinute: 5 });
      app.ctx.apiKeyAuth.results.clear(); // as the dashboard does after changing an account: this process forgets its cached keys
      expect((await send(a.apiKey, ["a@example.net", "b@example.net", "c@example.net", "d@example.net"])).status).toBe(200);
      const tooMany = await send(a.apiKey, ["e@example.net", "f@example.net"]);
      expect(tooMany.status).toBe(429);
      expect(await used(a.apiKeyId)).toEqual({ minute: 4, hour: 4, day: 4 });
      const fits = await send(a.apiKey, ["e@example.net"]);
      expect(fits.status).toBe(200);
      expect(fits.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(await used(a.apiKeyId)).toEqual({ minute: 5, hour: 5, day: 5 });
    });
  });

  it("does not count suppressed recipients", async () => {
    await inOneMinute(async () => {
      const a = await createTestAccount(app.ctx, { plan: "trial", name: "suppressed" });
      await addSuppression(app.ctx.database, { accountId: a.accountId, email: "gone@example.net", reason: "complaint" });
      expect((await send(a.apiKey, ["gone@example.net", "ok@example.net"])).status).toBe(200);
      expect(await used(a.apiKeyId)).toEqual({ minute: 1, hour: 1, day: 1 });
    });
  });

  it("answers 17 (HTTP 429) when the day window is used up, with Retry-After to the end of the UTC day", async () => {
    const a = await createTestAccount(app.ctx, { plan: "trial", name: "daily" });
    await setAccountLimits(app.ctx.database, a.accountId, { perMinute: 100, perHour: 100, perDay: 3 });
    app.ctx.apiKeyAuth.results.clear();
    for (let i = 0; i < 3; i++) expect((await send(a.apiKey, [`d${i}@example.net`])).status).toBe(200);
    const res = await send(a.apiKey, ["d9@example.net"]);
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({ Errors: [{ Code: 17, Message: "Email quota reached" }] });
    const dayEnd = Math.floor(Date.now() / 86_400_000) * 86_400 + 86_400;
    expect(Math.abs(Math.floor(Date.now() / 1000) + Number(res.headers.get("retry-after")) - dayEnd)).toBeLessThanOrEqual(2);
    expect(res.headers.get("x-ratelimit-limit")).toBe("3");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
  });

  it("answers 429 when the hour window is used up", async () => {
    const a = await createTestAccount(app.ctx, { plan: "trial", name: "hourly" });
    await setAccountLimits(app.ctx.database, a.accountId, { perMinute: 100, perHour: 2, perDay: 100 });
    app.ctx.apiKeyAuth.results.clear();
    await send(a.apiKey, ["h1@example.net", "h2@example.net"]);
    const res = await send(a.apiKey, ["h3@example.net"]);
    expect(res.status).toBe(429);
    expect(((await res.json()) as { Errors: { Code: number }[] }).Errors[0]!.Code).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(res.headers.get("retry-after"))).toBeLessThanOrEqual(3600);
  });

  it("keeps separate counters per API key", async () => {
    await inOneMinute(async () => {
      const a = await createTestAccount(app.ctx, { plan: "trial", name: "two keys" });
      await setAccountLimits(app.ctx.database, a.accountId, { perMinute: 1 });
      app.ctx.apiKeyAuth.results.clear();
      expect((await send(a.apiKey, ["k1@example.net"])).status).toBe(200);
      expect((await send(a.apiKey, ["k2@example.net"])).status).toBe(429);
      const second = await createApiKey(app.ctx.database, a.accountId, "second");
      expect((await send(second.apiKey, ["k3@example.net"])).status).toBe(200);
    });
  });

  it("puts X-RateLimit headers on error responses after authentication", async () => {
    const a = await createTestAccount(app.ctx, { plan: "starter", name: "headers" });
    for (const body of [{ ...message(["x@example.net"]), Subject: "" }, { nope: 1 }]) {
      const res = await send(a.apiKey, body);
      expect(res.status).toBe(400);
      expect(res.headers.get("x-ratelimit-limit")).toBe("50");
      expect(res.headers.get("x-ratelimit-remaining")).toBe("50");
      expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    }
    const bad = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(a.apiKey), body: "{" });
    expect(bad.status).toBe(422);
    expect(bad.headers.get("x-ratelimit-limit")).toBe("50");
    const unauth = await app.fetch("/api/v1/email", { method: "POST", body: "{}" });
    expect(unauth.headers.get("x-ratelimit-limit")).toBeNull();
  });

  it("holds the limit for concurrent multi-recipient requests", async () => {
    await inOneMinute(async () => {
      const a = await createTestAccount(app.ctx, { plan: "trial", name: "concurrent" });
      await setAccountLimits(app.ctx.database, a.accountId, { perMinute: 7, perHour: 100, perDay: 100 });
      app.ctx.apiKeyAuth.results.clear();
      const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => send(a.apiKey, [`m${i}a@example.net`, `m${i}b@example.net`])));
      expect(responses.filter((r) => r.status === 200)).toHaveLength(3);
      expect((await used(a.apiKeyId)).minute).toBe(6);
    });
  });
});
