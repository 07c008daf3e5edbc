import { describe, expect, it } from "vitest";
import { failingFirst } from "./failing-first";

describe("failingFirst", () => {
  it("puts fail before warn before pass, keeping the server's order within each", () => {
    const checks = [
      { Check: "verification", Status: "pass" as const },
      { Check: "spf", Status: "warn" as const },
      { Check: "dkim", Status: "fail" as const },
      { Check: "dmarc", Status: "warn" as const },
      { Check: "ptr", Status: "fail" as const },
    ];
    expect(failingFirst(checks).map((c) => c.Check)).toEqual(["dkim", "ptr", "spf", "dmarc", "verification"]);
    expect(checks[0]!.Check).toBe("verification");
  });
});
