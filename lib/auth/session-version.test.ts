import { describe, expect, it } from "vitest";
import { sessionHolds, sessionUserId } from "./session-version";

const ann = { id: "00000000-0000-4000-8000-0000000000a1", email: "ann@example.com", sessionVersion: 3 };

describe("sessionHolds", () => {
  it("holds only for the row it began with, at its version", () => {
    expect(sessionHolds({ uid: ann.id, sv: 3, email: "ann@example.com" }, ann)).toBe(true);
    expect(sessionHolds({ uid: ann.id, sv: 3, email: "ann@example.com" }, { ...ann, sessionVersion: 4 })).toBe(false);
    expect(sessionHolds({ uid: ann.id, sv: 4, email: "ann@example.com" }, ann)).toBe(false);
  });

  it("does not hold for another row with the same email and version (a user removed and added again)", () => {
    expect(sessionHolds({ uid: ann.id, sv: 3, email: "ann@example.com" }, { ...ann, id: "00000000-0000-4000-8000-0000000000b2" })).toBe(false);
  });

  it("does not hold for a session from before ids, nor for a version or email that is not the row's", () => {
    expect(sessionHolds({ sv: 3, email: "ann@example.com" }, ann)).toBe(false);
    expect(sessionHolds({ uid: "", sv: 3, email: "ann@example.com" }, ann)).toBe(false);
    expect(sessionHolds({ uid: ann.id, email: "ann@example.com" }, { ...ann, sessionVersion: 0 })).toBe(false);
    expect(sessionHolds({ uid: ann.id, sv: "3", email: "ann@example.com" }, ann)).toBe(false);
    expect(sessionHolds({ uid: ann.id, sv: 3, email: "bob@example.com" }, ann)).toBe(false);
    expect(sessionHolds({ uid: ann.id, sv: 3 }, ann)).toBe(false);
  });

  it("compares the email as stored (an identity provider's may differ in case)", () => {
    expect(sessionHolds({ uid: ann.id, sv: 3, email: "Ann@Example.COM" }, ann)).toBe(true);
  });

  it("reads the row id only when it is a non-empty string", () => {
    expect(sessionUserId({ uid: ann.id })).toBe(ann.id);
    for (const uid of [undefined, "", 7, null, [ann.id]]) expect(sessionUserId({ uid })).toBeUndefined();
  });
});
