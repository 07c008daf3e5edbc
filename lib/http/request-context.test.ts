import { Hono } from "hono";
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { ApiEnv } from "./env";
import { createHttpMetrics } from "./metrics";
import { requestContext, requestIdFrom } from "./request-context";

describe("requestContext", () => {
  const app = new Hono<ApiEnv>();
  app.use("*", requestContext(pino({ level: "silent" }), createHttpMetrics()));
  app.get("/redirect", () => Response.redirect("http://example.org/", 302));
  app.get("/id", (c) => c.text(c.get("requestId")));

  it("keeps a safe client id and makes one otherwise", async () => {
    expect(requestIdFrom("abc-123")).toBe("abc-123");
    expect(requestIdFrom("bad id")).toMatch(/^[0-9a-f-]{36}$/);
    const res = await app.request("/id", { headers: { "X-Request-Id": "r-1" } });
    expect(await res.text()).toBe("r-1");
    expect(res.headers.get("x-request-id")).toBe("r-1");
  });

  it("adds the id to responses with immutable headers", async () => {
    const res = await app.request("/redirect");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("http://example.org/");
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
