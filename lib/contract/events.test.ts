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
