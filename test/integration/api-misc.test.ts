import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

const NOT_FOUND = { Errors: [{ Code: 404, Message: "Resource not found" }] };

describe("API surface: 404, 405, trailing slashes, request ids, openapi, metrics", () => {
  let app: TestApp;
  let key: string;
  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_METRICS_TOKEN: "metrics-secret-token" });
    key = (await createTestAccount(app.ctx)).apiKey;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("answers an unknown path with the 404 envelope, authenticated or not", async () => {
    for (const headers of [{}, bearer(key)]) {
      const res = await app.fetch("/api/v1/nope", { headers });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(NOT_FOUND);
    }
    expect((await app.fetch("/api/v1", { headers: bearer(key) })).status).toBe(404);
    expect((await app.fetch("/api/v1/webhooks/1/extra", { headers: bearer(key) })).status).toBe(404);
  });

  it("answers a known path with a wrong method with 405, Allow and body code 404", async () => {
    const cases: [string, string, string][] = [
      ["GET", "/api/v1/email", "POST"],
      ["DELETE", "/api/v1/events", "GET, HEAD"],
      ["PUT", "/api/v1/webhooks", "POST, GET, HEAD"],
      ["GET", "/api/v1/webhooks/5", "DELETE"],
      ["POST", "/api/v1/stats/", "GET, HEAD"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await app.fetch(path, { method, headers: bearer(key) });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get("allow")).toBe(allow);
      expect(await res.json()).toEqual(NOT_FOUND);
    }
  });

  it("accepts a trailing slash on every path", async () => {
    const res = await app.fetch("/api/v1/events/", { headers: bearer(key) });
    expect(res.status).toBe(200);
    const sent = await app.fetch("/api/v1/email/", {
      method: "POST",
      headers: bearer(key),
      body: JSON.stringify({ From: "a@example.com", To: ["b@example.net"], Subject: "s", ContentType: "Text", PlainContent: "x" }),
    });
    expect(sent.status).toBe(200);
  });

  it("never answers 500 for hostile paths, queries and methods", async () => {
    const paths = [
      "/api/v1/%zz",
      "/api/v1/events?%%%=1",
      "/api/v1/events?MessageID=%E0%A4%A",
      "/api/v1/events?RetrieveCount=%00",
      `/api/v1/events?MessageID=${"a".repeat(8000)}`,
      "/api/v1/events?__proto__=1&constructor=2",
      "/api/v1/webhooks/%2e%2e",
      "/api/v1//email",
      "/api/v1/email/..",
    ];
    for (const path of paths) {
      const res = await app.fetch(path, { headers: bearer(key) });
      expect(res.status, path).toBeLessThan(500);
      expect(res.headers.get("content-type"), path).toMatch(/^application\/json/);
      await res.arrayBuffer();
    }
    for (const method of ["OPTIONS", "PATCH", "PUT"]) {
      const res = await app.fetch("/api/v1/email", { method, headers: bearer(key) });
      expect(res.status).toBe(405);
      await res.arrayBuffer();
    }
    const head = await app.fetch("/api/v1/events", { method: "HEAD", headers: bearer(key) });
    expect(head.status).toBe(200);
  });

  it("reads a JSON body whatever its Content-Type, with or without a BOM", async () => {
    const body = JSON.stringify({ From: "a@example.com", To: ["b@example.net"], Subject: "s", ContentType: "Text", PlainContent: "x" });
    for (const [contentType, payload] of [
      ["text/plain", body],
      ["application/x-www-form-urlencoded", body],
      ["application/json; charset=utf-8", "\uFEFF" + body],
    ]) {
      const res = await app.fetch("/api/v1/email", { method: "POST", headers: { Authorization: `Bearer ${key}`, "Content-Type": contentType! }, body: payload });
      expect(res.status, contentType).toBe(200);
    }
  });

  it("echoes a client's X-Request-Id and makes one otherwise", async () => {
    const res = await app.fetch("/api/v1/events", { headers: { ...bearer(key), "X-Request-Id": "client-req-42" } });
    expect(res.headers.get("x-request-id")).toBe("client-req-42");
    const res2 = await app.fetch("/api/v1/events", { headers: { ...bearer(key), "X-Request-Id": "x".repeat(200) } });
    expect(res2.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const res3 = await app.fetch("/api/v1/nope");
    expect(res3.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("serves an OpenAPI 3.1 document without a key", async () => {
    const res = await app.fetch("/api/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        ...["/email", "/email/batch", "/email/scheduled", "/email/{MessageID}", "/email/{MessageID}/cancel", "/events"],
        ...["/domains", "/domains/{domain}", "/domains/{domain}/verify", "/domains/{domain}/dkim/rotate", "/domains/{domain}/dmarc"],
        ...["/inbound/messages", "/inbound/messages/{MessageID}", "/inbound/messages/{MessageID}/raw", "/inbound/messages/{MessageID}/retry"],
        ...["/inbound/routes", "/inbound/routes/{id}", "/openapi.json", "/reputation", "/stats", "/suppressions", "/suppressions/{email}"],
        ...["/templates", "/templates/render", "/templates/{id}", "/templates/{id}/render", "/templates/{id}/versions/{version}"],
        ...["/webhooks", "/webhooks/{id}", "/webhooks/{id}/deliveries", "/webhooks/{id}/deliveries/{DeliveryID}"],
        ...["/webhooks/{id}/deliveries/{DeliveryID}/retry", "/webhooks/{id}/enable", "/webhooks/{id}/replay"],
      ].sort(),
    );
    expect(Object.keys(doc.paths["/suppressions"]!).sort()).toEqual(["get", "post"]);
    expect(doc.paths["/suppressions/{email}"]).toHaveProperty("delete");
    expect(doc.components.schemas).toHaveProperty("AddSuppressionRequest");
    expect(doc.paths["/webhooks"]).toHaveProperty("post");
    expect(doc.paths["/webhooks/{id}"]).toHaveProperty("delete");
    expect(Object.keys(doc.paths["/domains/{domain}"]!).sort()).toEqual(["delete", "get", "patch"]);
    expect(JSON.stringify(doc.paths["/domains/{domain}/dmarc"]!.get)).toContain('"name":"Days"');
    expect(doc.components.schemas).toHaveProperty("EmailRequest");
    expect(doc.components.schemas).toHaveProperty("StatsResponse");
    expect(JSON.stringify(doc.components.schemas.EventRecord)).toContain("Geolocation");
  });

  it("applies the contract's request rate (100/s, bursts of 200) by default", () => {
    expect(app.ctx.config.api.requestRate).toEqual({ ratePerSecond: 100, burst: 200 });
  });

  it("serves Prometheus metrics only with the token", async () => {
    expect((await app.fetch("/metrics")).status).toBe(401);
    expect((await app.fetch("/metrics", { headers: { Authorization: "Bearer wrong" } })).status).toBe(401);
    const res = await app.fetch("/metrics", { headers: { Authorization: "Bearer metrics-secret-token" } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/mailroom_http_requests_total\{method="GET",route="\/api\/v1\/events",status="200"\} \d+/);
    expect(text).toContain("mailroom_http_request_duration_seconds_bucket");
  });
});

describe("request rate limit of non-send endpoints", () => {
  // A slow refill (one token per 10 s) keeps the test exact on a busy machine; the bucket's
  // arithmetic at 100/s and 200 is unit-tested in lib/http/token-bucket.test.ts.
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_API_REQUEST_RATE: "0.1", MAILROOM_API_REQUEST_BURST: "20" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("admits the burst, then answers 429 with Retry-After, per key; POST /email is not counted", async () => {
    const a = (await createTestAccount(app.ctx, { name: "rate" })).apiKey;
    const b = (await createTestAccount(app.ctx, { name: "other", domain: "other.test" })).apiKey;
    const t0 = Date.now();
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 30; i++) {
      const res = await app.fetch(i % 2 ? "/api/v1/events" : "/api/v1/webhooks", { headers: bearer(a) });
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
      else await res.arrayBuffer();
    }
    const refill = Math.floor((Date.now() - t0) / 10_000);
    expect(statuses.filter((s) => s === 200).length).toBe(20 + refill);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(limited).toBeDefined();
    expect(await limited!.json()).toEqual({ Errors: [{ Code: 429, Message: "Too many requests" }] });
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Another key has its own bucket; sending is governed by the sending limits instead.
    expect((await app.fetch("/api/v1/events", { headers: bearer(b) })).status).toBe(200);
    const sent = await app.fetch("/api/v1/email", {
      method: "POST",
      headers: bearer(a),
      body: JSON.stringify({ From: "a@example.com", To: ["b@example.net"], Subject: "s", ContentType: "Text", PlainContent: "x" }),
    });
    expect(sent.status).toBe(200);
  });
});

describe("metrics without a token", () => {
  it("does not exist", async () => {
    const app = await startTestApp();
    try {
      expect((await app.fetch("/metrics")).status).toBe(404);
    } finally {
      await app.stop();
    }
  });
});
