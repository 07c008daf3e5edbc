import { describe, expect, it } from "vitest";
import { isChargedRefusal, spentWindows, windowRefusal } from "./render-charge";

describe("what a refused render costs its key", () => {
  it("charges a render a bound stopped after it ran, not one that never ran or did not parse", () => {
    for (const reason of ["output", "steps", "depth", "time"] as const) expect(isChargedRefusal({ ok: false, reason })).toBe(true);
    expect(isChargedRefusal({ ok: false, reason: "busy" })).toBe(false);
    expect(isChargedRefusal({ ok: false, reason: "syntax", part: "html" })).toBe(false);
  });

  it("a window with no email left refuses: 429 with the minute's or hour's Retry-After, code 17 for the day", () => {
    const now = 1_700_000_030; // 30 s into a minute
    const usages = [
      { kind: "minute" as const, limit: 10, used: 10 },
      { kind: "hour" as const, limit: 25, used: 24 },
      { kind: "day" as const, limit: 50, used: 24 },
    ];
    expect(spentWindows(usages)).toEqual(["minute"]);
    expect(windowRefusal(spentWindows(usages), now)).toEqual({ ok: false, errors: [{ Code: 429, Message: "Too many requests" }], retryAfter: 10 });
    expect(windowRefusal(["minute", "day"], now)?.errors[0]!.Code).toBe(17);
    expect(windowRefusal(spentWindows([{ kind: "minute", limit: 10, used: 9 }]), now)).toBeUndefined();
  });
});
