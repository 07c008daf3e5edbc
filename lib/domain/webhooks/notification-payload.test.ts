import { describe, expect, it } from "vitest";
import {
  bouncedEventDataSchema,
  clickedEventDataSchema,
  complainedEventDataSchema,
  deliveredEventDataSchema,
  openedEventDataSchema,
  unsubscribedEventDataSchema,
} from "../../contract/notifications";
import { REGISTRATION_EVENTS } from "../../contract/webhooks";
import { buildEventData, sampleEventData, webhookEventsMatching } from "./notification-payload";

const base = { messageId: "5a0b7e0e-4c1e-4b7e-9d1e-0c0f6c1f2a3b", recipient: "ann@example.net", domain: "example.com" };

describe("webhookEventsMatching", () => {
  it("maps event types to both vocabularies", () => {
    expect(webhookEventsMatching("delivered")).toEqual(["delivery", "delivered"]);
    expect(webhookEventsMatching("failed")).toEqual(["bounce", "bounced"]);
    expect(webhookEventsMatching("rejected")).toEqual(["bounce", "bounced"]);
    expect(webhookEventsMatching("opened")).toEqual(["open", "opened"]);
    expect(webhookEventsMatching("clicked")).toEqual(["click", "clicked"]);
    expect(webhookEventsMatching("unsubscribed")).toEqual(["unsubscribe", "unsubscribed"]);
    expect(webhookEventsMatching("complained")).toEqual(["complaint", "complained"]);
    expect(webhookEventsMatching("accepted")).toEqual([]);
  });
});

describe("buildEventData", () => {
  it("builds delivered without IPAddress", () => {
    const d = buildEventData({ ...base, type: "delivered" });
    expect(deliveredEventDataSchema.parse(d)).toEqual({ Event: "delivered", Domain: "example.com", MessageID: base.messageId, To: "ann@example.net" });
  });

  it("builds bounced from an SMTP failure without To or IPAddress", () => {
    const d = buildEventData({
      ...base,
      type: "failed",
      reason: "550 5.1.1 User unknown",
      details: { smtpCode: 550, enhancedCode: "5.1.1", diagnostic: "550 5.1.1 User unknown" },
      ip: "192.0.2.1",
    });
    expect(bouncedEventDataSchema.parse(d)).toEqual({
      Event: "bounced",
      EventType: "failed",
      Domain: "example.com",
      MessageID: base.messageId,
      BouncedEmailAddress: { EmailAddress: "ann@example.net", Status: "5.1.1", DiagnosticCode: "smtp; 550 5.1.1 User unknown" },
      Reason: "550 5.1.1 User unknown",
      Code: "550",
    });
  });

  it("builds bounced for a recipient the service refused itself", () => {
    const d = buildEventData({ ...base, type: "rejected", reason: "Recipient is on the suppression list (hard-bounce)" });
    expect(bouncedEventDataSchema.parse(d)).toMatchObject({
      EventType: "rejected",
      BouncedEmailAddress: { Status: "", DiagnosticCode: "Recipient is on the suppression list (hard-bounce)" },
      Code: "",
    });
  });

  it("builds opened, clicked, unsubscribed and complained", () => {
    expect(openedEventDataSchema.parse(buildEventData({ ...base, type: "opened", ip: "198.51.100.7" }))).toMatchObject({ IPAddress: "198.51.100.7" });
    expect(clickedEventDataSchema.parse(buildEventData({ ...base, type: "clicked", ip: "198.51.100.7", url: "https://x.test/a" }))).toMatchObject({
      Url: "https://x.test/a",
    });
    expect(unsubscribedEventDataSchema.parse(buildEventData({ ...base, type: "unsubscribed", ip: "198.51.100.7" }))).toMatchObject({
      Event: "unsubscribed",
    });
    expect(complainedEventDataSchema.parse(buildEventData({ ...base, type: "complained" }))).toEqual({
      Event: "complained",
      Domain: "example.com",
      MessageID: base.messageId,
      To: "ann@example.net",
    });
  });

  it("builds nothing for accepted", () => {
    expect(buildEventData({ ...base, type: "accepted" })).toBeUndefined();
  });

  it("has a sample for every registration event", () => {
    for (const r of REGISTRATION_EVENTS) expect(sampleEventData(r, "example.com").Domain).toBe("example.com");
    expect(sampleEventData("bounce", "example.com").Event).toBe("bounced");
  });
});
