import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { inboundVerdictOf, inboundWebhookId, signInboundPost } from "./inbound-post";

describe("inbound post policy", () => {
  const schedule = [1000, 2000];
  it("delivers on 2xx, stops on 403 and 406, retries anything else on the schedule, then gives up", () => {
    expect(inboundVerdictOf(204, 1, schedule)).toEqual({ kind: "delivered" });
    expect(inboundVerdictOf(403, 1, schedule)).toEqual({ kind: "refused" });
    expect(inboundVerdictOf(406, 1, schedule)).toEqual({ kind: "refused" });
    expect(inboundVerdictOf(500, 1, schedule)).toEqual({ kind: "retry", delayMs: 1000 });
    expect(inboundVerdictOf(0, 2, schedule)).toEqual({ kind: "retry", delayMs: 2000 });
    expect(inboundVerdictOf(404, 3, schedule)).toEqual({ kind: "exhausted" });
  });
  it("signs with the Standard Webhooks headers that the standardwebhooks package verifies, webhook-id stable per message", async () => {
    const key = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    const body = JSON.stringify({ Subject: "Hi" });
    const headers = await signInboundPost(key, "0b8a3c1e-1234-4abc-8def-0123456789ab", Buffer.from(body));
    expect(headers["webhook-id"]).toBe(inboundWebhookId("0b8a3c1e-1234-4abc-8def-0123456789ab"));
    expect(new Webhook(key).verify(body, headers)).toEqual({ Subject: "Hi" });
    expect(() => new Webhook(key).verify(body.replace("Hi", "Ho"), headers)).toThrow();
    // A body of several steps (1 MB each) with multi-byte characters across their edges: the same signature.
    const large = JSON.stringify({ Subject: "é✓".repeat(700_000) });
    expect(new Webhook(key).verify(large, await signInboundPost(key, "0b8a3c1e-1234-4abc-8def-0123456789ab", Buffer.from(large)))).toEqual({ Subject: "é✓".repeat(700_000) });
  });
});
