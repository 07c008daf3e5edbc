import { describe, expect, it } from "vitest";
import { deliverQueue, notifyQueue } from "./jobs";
import { parsePayload } from "./payload";

describe("parsePayload", () => {
  it("accepts the payloads the enqueuers write", () => {
    expect(parsePayload(deliverQueue, { messageId: "m1", recipientIds: [1, 2], requestId: "r" })).toEqual({
      ok: true,
      data: { messageId: "m1", recipientIds: [1, 2], requestId: "r" },
    });
    expect(parsePayload(notifyQueue, { notificationId: 7 })).toEqual({ ok: true, data: { notificationId: 7 } });
  });

  it("refuses anything else with a reason naming the field, never throws", () => {
    for (const bad of [null, "x", [], {}, { notificationId: "7" }, { notificationId: -1 }, { notificationId: 1.5 }]) {
      const r = parsePayload(notifyQueue, bad);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(/^Invalid notify payload \(.+\); not retried$/);
    }
    const r = parsePayload(deliverQueue, { messageId: "m1", recipientIds: ["1"] });
    expect(r).toMatchObject({ ok: false });
    if (!r.ok) expect(r.reason).toContain("recipientIds.0");
  });
});
