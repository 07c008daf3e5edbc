import { describe, expect, it } from "vitest";
import { subjectPattern } from "./event-search";

describe("subjectPattern", () => {
  it("matches the fragment anywhere", () => {
    expect(subjectPattern("Receipt")).toBe("%Receipt%");
  });

  it("takes ILIKE's wildcards and its escape literally", () => {
    expect(subjectPattern("50% off_now")).toBe("%50\\% off\\_now%");
    expect(subjectPattern("a\\b")).toBe("%a\\\\b%");
    expect(subjectPattern("%%%")).toBe("%\\%\\%\\%%");
  });
});
