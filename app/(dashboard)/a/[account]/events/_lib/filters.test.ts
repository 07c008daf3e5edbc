import { describe, expect, it } from "vitest";
import { boundSeconds, parseEventFilters, toApiParams, toSearch } from "./filters";

describe("event filters in the URL", () => {
  it("round-trips through the query string", () => {
    const f = parseEventFilters({ from: "2026-11-01T10:00", to: "2026-11-02", type: "opened", messageId: "abc", offset: "50", size: "50" });
    expect(f).toEqual({ from: "2026-11-01T10:00", to: "2026-11-02", type: "opened", messageId: "abc", offset: 50, size: 50 });
    expect(parseEventFilters(new URLSearchParams(toSearch(f).slice(1)))).toEqual(f);
  });

  it("drops malformed values instead of failing", () => {
    expect(parseEventFilters({ from: "yesterday", type: "sent", offset: "-3", size: "7" })).toEqual({ offset: 0, size: 25 });
    expect(toSearch({ offset: 0, size: 25 })).toBe("");
  });

  it("maps to GET /events parameters with inclusive UTC bounds", () => {
    const p = toApiParams(parseEventFilters({ from: "2026-11-01", to: "2026-11-01T10:05", type: "failed", offset: "25" }));
    expect(p.StartDate).toBe(Date.UTC(2026, 10, 1) / 1000);
    expect(p.EndDate).toBe(Date.UTC(2026, 10, 1, 10, 5, 59) / 1000);
    expect(p).toMatchObject({ Event: "failed", StartFrom: 25, RetrieveCount: 25 });
    expect(boundSeconds("2026-11-01", "to")).toBe(Date.UTC(2026, 10, 1, 23, 59, 59) / 1000);
  });

  it("carries a recipient and a subject fragment to GET /events' Recipient and Subject", () => {
    const f = parseEventFilters({ recipient: " Carol@Example.NET ", subject: " receipt ", type: "failed" });
    expect(f).toMatchObject({ recipient: "Carol@Example.NET", subject: "receipt", type: "failed" });
    expect(toApiParams(f)).toMatchObject({ Recipient: "Carol@Example.NET", Subject: "receipt", Event: "failed" });
    expect(parseEventFilters(new URLSearchParams(toSearch(f).slice(1)))).toEqual(f);
    expect(toSearch({ recipient: "a+b@example.com" })).toBe("?recipient=a%2Bb%40example.com");
  });

  it("drops a subject the API would refuse and an address too long to be one", () => {
    expect(parseEventFilters({ subject: "ab", recipient: `${"a".repeat(320)}@x.test` })).toEqual({ offset: 0, size: 25 });
    expect(parseEventFilters({ subject: "x".repeat(999) }).subject).toBeUndefined();
    expect(parseEventFilters({ subject: "   " }).subject).toBeUndefined();
  });

  it("swaps bounds given the wrong way round", () => {
    const p = toApiParams(parseEventFilters({ from: "2026-11-02", to: "2026-11-01" }));
    expect(p.StartDate).toBe(Date.UTC(2026, 10, 1) / 1000);
    expect(p.EndDate).toBe(Date.UTC(2026, 10, 2, 23, 59, 59) / 1000);
  });
});
