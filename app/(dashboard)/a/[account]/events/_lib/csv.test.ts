import { describe, expect, it } from "vitest";
import type { EventRecord } from "@/lib/contract/events";
import { csvCell, csvHeader, csvRow } from "./csv";

const record: EventRecord = {
  Event: "failed",
  LoggedAt: 1_763_800_000,
  LogLevel: "error",
  Message: {
    Headers: { MessageId: "m-1", From: [["Demo", "hello@example.com"]], ReplyTo: [], To: [["", "bounce@example.org"]], Cc: [], Bcc: [], Subject: 'Hi, "you"' },
    Size: 1234,
    Transport: "api",
  },
  Recipient: "bounce@example.org",
  Reason: "550 5.1.1 user unknown",
  Tags: ["a", "b"],
  EventID: "42",
};

describe("csv", () => {
  it("quotes commas and quotes, uses CRLF", () => {
    const row = csvRow(record);
    expect(row.endsWith("\r\n")).toBe(true);
    expect(row).toContain('"Hi, ""you"""');
    expect(row.startsWith("1763800000,2025-11-22T08:26:40.000Z,failed,bounce@example.org,")).toBe(true);
    expect(csvHeader().split(",")).toHaveLength(row.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/).length);
  });

  it("defuses formulas", () => {
    expect(csvCell("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvCell("@x")).toBe("'@x");
    expect(csvCell(-5)).toBe("-5");
  });
});
