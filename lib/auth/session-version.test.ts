import { describe, expect, it } from "vitest";
import { sessionVersionCurrent } from "./session-version";

describe("sessionVersionCurrent", () => {
  it("holds only while the session's version is the staff row's", () => {
    expect(sessionVersionCurrent({ sv: 3 }, { sessionVersion: 3 })).toBe(true);
    expect(sessionVersionCurrent({ sv: 3 }, { sessionVersion: 4 })).toBe(false);
    expect(sessionVersionCurrent({ sv: 4 }, { sessionVersion: 3 })).toBe(false);
  });

  it("counts a session from before versions (no sv) as version 0, and anything not a number too", () => {
    expect(sessionVersionCurrent({}, { sessionVersion: 0 })).toBe(true);
    expect(sessionVersionCurrent({}, { sessionVersion: 1 })).toBe(false);
    expect(sessionVersionCurrent({ sv: "1" }, { sessionVersion: 1 })).toBe(false);
    expect(sessionVersionCurrent({ sv: null }, { sessionVersion: 0 })).toBe(true);
  });
});
