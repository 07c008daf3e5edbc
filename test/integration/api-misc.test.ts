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
    expect(Object.keys(doc.paths).sort()).toEqual(["/email", "/events", "/openapi.json", "/stats", "/webhooks", "/webhooks/{id}"]);
    expect(doc.paths["/webhooks"]).toHaveProperty("post");
    expect(doc.paths["/webhooks/{id}"]).toHaveProperty("delete");
    expect(doc.components.schemas).toHaveProperty("EmailRequest");
    expect(doc.components.schemas).toHaveProperty("StatsResponse");
    expect(JSON.stringify(doc.components.schemas.EventRecord)).toContain("Geolocation");
  });

  it("limits the request rate of non-send endpoints per key (burst 200, then 429 with Retry-After)", async () => {
    const other = (await createTestAccount(app.ctx, { name: "rate" })).apiKey;
    // A cheap request (a 422 after auth and the rate check) so that the burst outruns the refill.
    const t0 = Date.now();
    const responses = await Promise.all(Array.from({ length: 500 }, () => app.fetch("/api/v1/stats", { headers: bearer(other) })));
    const elapsed = (Date.now() - t0) / 1000;
    const ok = responses.filter((r) => r.status === 422);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok.length + limited.length).toBe(500);
    expect(ok.length).toBeLessThanOrEqual(200 + Math.ceil(elapsed * 100) + 1);
    expect(ok.length).toBeGreaterThanOrEqual(200);
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await limited[0]!.json()).toEqual({ Errors: [{ Code: 429, Message: "Too many requests" }] });
    await Promise.all(responses.map((r) => (r.bodyUsed ? undefined : r.arrayBuffer())));
    // Another key is not affected.
    expect((await app.fetch("/api/v1/events", { headers: bearer(key) })).status).toBe(200);
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
