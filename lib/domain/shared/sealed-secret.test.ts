import { describe, expect, it } from "vitest";
import { sealSecret, unsealSecret } from "./sealed-secret";

describe("sealed secrets", () => {
  it("round-trips under the same secret and purpose, and never stores the plain text", () => {
    const sealed = sealSecret("mr_live_key", "secret-a", "dashboard-api-key");
    expect(sealed).not.toContain("mr_live_key");
    expect(sealed).not.toBe(sealSecret("mr_live_key", "secret-a", "dashboard-api-key")); // fresh IV each time
    expect(unsealSecret(sealed, "secret-a", "dashboard-api-key")).toBe("mr_live_key");
  });

  it("refuses another secret, another purpose or a damaged value", () => {
    const sealed = sealSecret("mr_live_key", "secret-a", "dashboard-api-key");
    expect(unsealSecret(sealed, "secret-b", "dashboard-api-key")).toBeUndefined();
    expect(unsealSecret(sealed, "secret-a", "other")).toBeUndefined();
    expect(unsealSecret(sealed.slice(0, -2) + "AA", "secret-a", "dashboard-api-key")).toBeUndefined();
    expect(unsealSecret("plain", "secret-a", "dashboard-api-key")).toBeUndefined();
  });
});
