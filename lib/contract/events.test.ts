import { describe, expect, it } from "vitest";
import { eventRecordSchema, eventsQuerySchema, looseEventRecordSchema } from "./events";

describe("events contract", () => {
  it("parses query strings into numbers and checks bounds", () => {
    expect(eventsQuerySchema.parse({ StartFrom: "10", RetrieveCount: "100", StartDate: "0", EndDate: "5" })).toEqual({
      StartFrom: 10,
      RetrieveCount: 100,
      StartDate: 0,
      EndDate: 5,
    });
    for (const bad of [{ RetrieveCount: "0" }, { RetrieveCount: "101" }, { StartFrom: "-1" }, { StartDate: "9", EndDate: "1" }, { Event: "bounce" }]) {
      expect(eventsQuerySchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(eventsQuerySchema.parse({ Event: "accepted-by-system" }).Event).toBe("accepted-by-system");
  });

  it("parses the extension filters Recipient and Subject, trimmed and bounded", () => {
    expect(eventsQuerySchema.parse({ Recipient: " Carol@Example.NET ", Subject: " receipt " })).toEqual({ Recipient: "Carol@Example.NET", Subject: "receipt" });
    expect(eventsQuerySchema.parse({ Recipient: "a".repeat(320), Subject: "é".repeat(998) })).toMatchObject({ Subject: "é".repeat(998) });
    expect(eventsQuerySchema.parse({ Subject: "😀😀😀" }).Subject).toBe("😀😀😀");
    for (const bad of [{ Subject: "x".repeat(1000) }, { Subject: "ab" }, { Subject: "  ab  " }, { Recipient: "a".repeat(321) }, { Recipient: "   " }]) {
      const parsed = eventsQuerySchema.safeParse(bad);
      expect(parsed.success, JSON.stringify(bad).slice(0, 40)).toBe(false);
      expect(parsed.error!.issues[0]!.path, JSON.stringify(bad).slice(0, 40)).toEqual(Object.keys(bad));
    }
  });

  it("reads a spec-only record (no extensions, string addresses) with the loose schema", () => {
    const foreign = {
      Event: "delivered",
      LoggedAt: 1,
      LogLevel: "info",
      Message: { Headers: { MessageId: "x", From: ["a@b.test"], To: [["A", "a@b.test"]], Subject: "s" } },
      Recipient: "a@b.test",
      Reason: "",
      Extra: true,
    };
    expect(looseEventRecordSchema.parse(foreign)).toMatchObject({ Extra: true });
    expect(eventRecordSchema.safeParse(foreign).success).toBe(false);
  });
});
