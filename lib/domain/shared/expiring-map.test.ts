import { describe, expect, it } from "vitest";
import { ExpiringMap } from "./expiring-map";

describe("ExpiringMap", () => {
  it("answers a value until its time runs out, then forgets it", () => {
    const m = new ExpiringMap<string>(1000);
    m.set("a", "x", 0);
    expect(m.get("a", 999)).toBe("x");
    expect(m.get("a", 1000)).toBeUndefined();
    expect(m.get("a", 0)).toBeUndefined(); // deleted on the expired read
  });

  it("stays within its bound by starting again empty", () => {
    const m = new ExpiringMap<number>(60_000, 3);
    for (let i = 0; i < 3; i++) m.set(String(i), i, 0);
    m.set("3", 3, 0);
    expect(m.get("0", 1)).toBeUndefined();
    expect(m.get("3", 1)).toBe(3);
  });

  it("clear and delete forget at once", () => {
    const m = new ExpiringMap<number>(60_000);
    m.set("a", 1, 0);
    m.set("b", 2, 0);
    m.delete("a");
    expect(m.get("a", 1)).toBeUndefined();
    m.clear();
    expect(m.get("b", 1)).toBeUndefined();
  });
});
