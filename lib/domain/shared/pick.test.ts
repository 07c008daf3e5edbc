import { describe, expect, it } from "vitest";
import { pick } from "./pick";

describe("pick", () => {
  it("keeps the named members, their values as they are, and drops every other", () => {
    const createdAt = new Date(0);
    const row = { id: "k1", hash: "secret", createdAt, revokedAt: null, scope: "full" };
    const picked = pick(row, ["id", "createdAt", "revokedAt"]);
    expect(picked).toEqual({ id: "k1", createdAt, revokedAt: null });
    expect(picked.createdAt).toBe(createdAt);
    expect("hash" in picked).toBe(false);
  });

  it("gives a new object: changing it leaves the row alone", () => {
    const row = { id: "k1", label: "a" };
    const picked = pick(row, ["label"]);
    picked.label = "b";
    expect(row.label).toBe("a");
  });
});
