import { describe, expect, it } from "vitest";
import { isStaffRole, normalizeStaffEmail, parseStaffRole } from "./staff-users";

describe("staff roles and emails", () => {
  it("accepts the three roles in any case", () => {
    expect(parseStaffRole("Admin")).toBe("admin");
    expect(parseStaffRole(" support ")).toBe("support");
    expect(isStaffRole("marketing")).toBe(true);
    expect(isStaffRole("root")).toBe(false);
  });
  it("refuses other roles with a message naming the valid ones", () => {
    expect(() => parseStaffRole("owner")).toThrow('Unknown role "owner": use admin, support or marketing');
  });
  it("normalises emails", () => {
    expect(normalizeStaffEmail("  Ann@Example.Com ")).toBe("ann@example.com");
  });
});
