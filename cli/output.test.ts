import { describe, expect, it } from "vitest";
import { formatTime, table } from "./output";

describe("table", () => {
  it("pads columns to the widest cell and shows missing values as -", () => {
    expect(table(["ID", "NAME", "LIMIT"], [["a1", "Demo", 50], ["b22", "Shop", null]])).toBe(
      ["ID   NAME  LIMIT", "a1   Demo  50", "b22  Shop  -"].join("\n"),
    );
  });
  it("says (none) when there are no rows", () => {
    expect(table(["ID"], [])).toBe("(none)");
  });
  it("prints times to the second in UTC", () => {
    expect(formatTime(new Date("2026-01-02T03:04:05.678Z"))).toBe("2026-01-02T03:04:05Z");
  });
});
