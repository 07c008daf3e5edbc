import { describe, expect, it } from "vitest";
import { errorItemsOf, parseJson, queryString, requestInit, requestSignal, retryAfterMs, segment, templateId, webhookPath } from "./request";

describe("the steps of one API request", () => {
  it("writes the parameters set as a query string", () => {
    expect(queryString({ StartDate: 1, Event: "opened", MessageID: undefined, Recipient: "" })).toBe("?StartDate=1&Event=opened");
    expect(queryString({})).toBe("");
  });

  it("encodes ids as path segments; a template id or version must be a positive integer", () => {
    expect(segment("a/b c")).toBe("a%2Fb%20c");
    expect(webhookPath(7)).toBe("/webhooks/7");
    expect(templateId(3)).toBe("3");
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => templateId(bad)).toThrow(RangeError);
  });

  it("sends the key as a bearer token, JSON only with a body, nothing cached", () => {
    const signal = AbortSignal.timeout(1000);
    expect(requestInit("GET", "k", undefined, signal)).toEqual({
      method: "GET",
      headers: { Authorization: "Bearer k", Accept: "application/json" },
      body: undefined,
      signal,
      cache: "no-store",
    });
    expect(requestInit("POST", "k", { A: 1 }, signal)).toMatchObject({ headers: { "Content-Type": "application/json" }, body: '{"A":1}' });
  });

  it("aborts with the caller's signal as well as on its own time limit", () => {
    const caller = new AbortController();
    const signal = requestSignal(caller.signal, 60_000);
    expect(signal.aborted).toBe(false);
    caller.abort();
    expect(signal.aborted).toBe(true);
    expect(requestSignal(undefined, 60_000).aborted).toBe(false);
  });

  it("reads a body as JSON, or nothing", () => {
    expect(parseJson('{"a":1}')).toEqual({ a: 1 });
    expect(parseJson("")).toBeUndefined();
    expect(parseJson("<html>")).toBeUndefined();
  });

  it("waits what a 429's Retry-After asks, between 50 ms and 5 s, 1 s without one", () => {
    expect(retryAfterMs("2")).toBe(2000);
    expect(retryAfterMs("60")).toBe(5000);
    expect(retryAfterMs("0.001")).toBe(50);
    expect(retryAfterMs(null)).toBe(1000);
    expect(retryAfterMs("soon")).toBe(1000);
  });

  it("takes the error items of the contract's envelope, none of another body", () => {
    const items = [{ Code: 10, Message: "Invalid API key" }];
    expect(errorItemsOf({ Errors: items })).toEqual(items);
    expect(errorItemsOf({ error: "nope" })).toEqual([]);
    expect(errorItemsOf(undefined)).toEqual([]);
  });
});
