import { describe, expect, it } from "vitest";
import { deliverQueue, MAX_DELIVER_ENTRIES } from "../jobs/deliver";
import { notifyQueue } from "../jobs/notify";
import { parsePayload } from "./payload";

describe("parsePayload", () => {
  it("accepts the payloads the enqueuers write", () => {
    const messages = [{ messageId: "m1", recipientIds: [1, 2], requestId: "r" }, { messageId: "m2", recipientIds: [3] }];
    expect(parsePayload(deliverQueue, { messages })).toEqual({ ok: true, data: { messages } });
    expect(parsePayload(notifyQueue, { notificationId: 7 })).toEqual({ ok: true, data: { notificationId: 7 } });
  });

  it("reads a deliver job of the versions before packing (one message as the payload) as a job of that message", () => {
    expect(parsePayload(deliverQueue, { messageId: "m1", recipientIds: [1, 2], requestId: "r" })).toEqual({
      ok: true,
      data: { messages: [{ messageId: "m1", recipientIds: [1, 2], requestId: "r" }] },
    });
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
    for (const bad of [null, "x", [], { messages: [] }, { messages: "m1" }, { messages: [{ messageId: "m1" }] }]) {
      const d = parsePayload(deliverQueue, bad);
      expect(d.ok).toBe(false);
      if (!d.ok) expect(d.reason).toMatch(/^Invalid deliver payload \(.+\); not retried$/);
    }
    const tooMany = { messages: Array.from({ length: MAX_DELIVER_ENTRIES + 1 }, (_, n) => ({ messageId: `m${n}`, recipientIds: [n + 1] })) };
    expect(parsePayload(deliverQueue, tooMany).ok).toBe(false);
  });
});
