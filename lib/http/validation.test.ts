import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { eventsQuerySchema } from "../contract/events";
import { createWebhookRequestSchema, webhookIdParamSchema } from "../contract/webhooks";
import { queryInput } from "./query";
import { readValidJson, validationErrors, validationHook } from "./validation";

const FIELD = (Field: string) => ({ Code: 422, Message: "Invalid request parameters", Field });

describe("validationErrors", () => {
  it("names each offending field once, in the schema's order; input that is no object has no Field", () => {
    const bad = createWebhookRequestSchema.safeParse({ WebhookURL: "ftp://x", Event: "nope" });
    expect(bad.success).toBe(false);
    expect(validationErrors(bad.error!.issues)).toEqual([FIELD("Event"), FIELD("WebhookURL")]);
    for (const input of [null, [], "x", 1]) {
      expect(validationErrors(createWebhookRequestSchema.safeParse(input).error!.issues)).toEqual([{ Code: 422, Message: "Invalid request parameters" }]);
    }
  });
});

describe("validationHook as the defaultHook of an OpenAPIHono app", () => {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  app.openapi(
    createRoute({ method: "get", path: "/events", request: { query: queryInput(eventsQuerySchema) }, responses: { 200: { description: "ok" } } }),
    (c) => c.json(c.req.valid("query"), 200),
  );
  app.openapi(
    createRoute({ method: "delete", path: "/webhooks/{id}", request: { params: z.object({ id: webhookIdParamSchema }) }, responses: { 200: { description: "ok" } } }),
    (c) => c.json(c.req.valid("param"), 200),
  );
  app.post("/webhooks", async (c) => {
    const input = await readValidJson(c, createWebhookRequestSchema, 200);
    return input.ok ? c.json(input.data) : input.response;
  });

  it("renders query violations as the 422 envelope with Field, in the schema's order", async () => {
    const res = await app.request("/events?RetrieveCount=101&StartDate=x&Event=opened");
    expect(res.status).toBe(422);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe(JSON.stringify({ Errors: [FIELD("StartDate"), FIELD("RetrieveCount")] }));
    expect(await (await app.request("/events?RetrieveCount=20&Event=")).json()).toEqual({ RetrieveCount: 20 });
  });

  it("renders a bad path parameter the same way", async () => {
    const res = await app.request("/webhooks/0", { method: "DELETE" });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ Errors: [FIELD("id")] });
    expect(await (await app.request("/webhooks/007", { method: "DELETE" })).json()).toEqual({ id: "007" });
  });

  it("reads a body of any Content-Type up to the cap and checks it with the contract schema", async () => {
    const post = (body: string, type = "text/plain") => app.request("/webhooks", { method: "POST", body, headers: { "Content-Type": type } });
    expect(await (await post('{"Event":"delivered","WebhookURL":"https://example.com/h"}')).json()).toEqual({
      Event: "delivered",
      WebhookURL: "https://example.com/h",
    });
    expect(await (await post('{"Event":"x"}', "application/json")).json()).toEqual({ Errors: [FIELD("Event"), FIELD("WebhookURL")] });
    for (const body of ["{", JSON.stringify({ Event: "open", WebhookURL: `https://example.com/${"x".repeat(300)}` })]) {
      const res = await post(body);
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({ Errors: [{ Code: 422, Message: "Invalid request parameters" }] });
    }
  });
});
