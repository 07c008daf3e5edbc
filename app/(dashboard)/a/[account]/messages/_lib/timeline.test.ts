import { describe, expect, it } from "vitest";
import type { EventRecord, EventType } from "@/lib/contract/events";
import { buildMessageStory } from "./timeline";

function ev(type: EventType, recipient: string, at: number): EventRecord {
  return {
    Event: type,
    LoggedAt: at,
    LogLevel: "info",
    Message: {
      Headers: {
        MessageId: "m1",
        From: [["Demo", "hello@example.com"]],
        ReplyTo: [],
        To: [["Ann", "ann@example.org"], ["", "bounce@example.org"]],
        Cc: [["", "cc@example.org"]],
        Bcc: [],
        Subject: "Hi",
      },
      Size: 10,
      Transport: "api",
    },
    Recipient: recipient,
    Reason: "",
    Tags: [],
    EventID: `${type}-${recipient}-${at}`,
  };
}

describe("buildMessageStory", () => {
  it("groups events per recipient, oldest first, with the furthest stage", () => {
    const newestFirst = [
      ev("clicked", "ann@example.org", 40),
      ev("opened", "ann@example.org", 30),
      ev("failed", "bounce@example.org", 20),
      ev("delivered", "ann@example.org", 20),
      ev("accepted", "cc@example.org", 10),
      ev("accepted", "bounce@example.org", 10),
      ev("accepted", "ann@example.org", 10),
    ];
    const story = buildMessageStory(newestFirst)!;
    expect(story.recipients.map((r) => [r.email, r.kind, r.status])).toEqual([
      ["ann@example.org", "to", "clicked"],
      ["bounce@example.org", "to", "failed"],
      ["cc@example.org", "cc", "pending"],
    ]);
    expect(story.recipients[0]!.events.map((e) => e.Event)).toEqual(["accepted", "delivered", "opened", "clicked"]);
    expect(story.firstAt).toBe(10);
  });

  it("is undefined without events", () => {
    expect(buildMessageStory([])).toBeUndefined();
  });
});
