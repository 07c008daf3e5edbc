import { describe, expect, it } from "vitest";
import { decodeTrackingToken, encodeTrackingToken } from "./tracking-tokens";
import { parseVerpAddress, verpAddress } from "./verp";

const secret = "s3cret-s3cret-s3cret";
const messageId = "0f8fad5b-d9cb-469f-a165-70867728950e";

describe("tracking tokens", () => {
  it("round-trips open, click and unsubscribe tokens", () => {
    for (const t of [
      { kind: "o" as const, messageId, recipientId: 1 },
      { kind: "c" as const, messageId, recipientId: 123456789, link: 7 },
      { kind: "u" as const, messageId, recipientId: 42 },
    ]) {
      const text = encodeTrackingToken(secret, t);
      expect(text).toMatch(/^[A-Za-z0-9._-]+$/);
      expect(decodeTrackingToken(secret, text)).toEqual(t);
    }
  });

  it("rejects a tampered token, a token under another secret and garbage", () => {
    const text = encodeTrackingToken(secret, { kind: "c", messageId, recipientId: 5, link: 0 });
    const parts = text.split(".");
    parts[3] = "1"; // another link
    expect(decodeTrackingToken(secret, parts.join("."))).toBeUndefined();
    const otherRecipient = text.replace(".5.", ".6.");
    expect(decodeTrackingToken(secret, otherRecipient)).toBeUndefined();
    expect(decodeTrackingToken("another-secret-value", text)).toBeUndefined();
    expect(decodeTrackingToken(secret, text.slice(0, -1) + (text.endsWith("A") ? "B" : "A"))).toBeUndefined();
    for (const bad of ["", "x", "o..1.abc", "a".repeat(500)]) expect(decodeTrackingToken(secret, bad)).toBeUndefined();
  });

  it("refuses a click token relabelled as an open token", () => {
    const text = encodeTrackingToken(secret, { kind: "c", messageId, recipientId: 5, link: 2 });
    expect(decodeTrackingToken(secret, "o" + text.slice(1))).toBeUndefined();
  });
});

describe("VERP addresses", () => {
  it("round-trips and survives case folding", () => {
    const a = verpAddress(secret, 987654, "bounces.example.com");
    expect(a).toMatch(/^bounces\+[0-9a-z]+-[0-9a-f]{16}@bounces\.example\.com$/);
    expect(parseVerpAddress(secret, a)).toBe(987654);
    expect(parseVerpAddress(secret, a.toUpperCase())).toBe(987654);
  });
  it("rejects forged and foreign addresses", () => {
    const a = verpAddress(secret, 10, "b.example.com");
    expect(parseVerpAddress(secret, a.replace("bounces+a-", "bounces+b-"))).toBeUndefined();
    expect(parseVerpAddress("other-secret-123", a)).toBeUndefined();
    expect(parseVerpAddress(secret, "postmaster@example.com")).toBeUndefined();
  });
});

describe("mailto unsubscribe addresses", () => {
  it("are not interchangeable with VERP addresses", async () => {
    const { signedAddress, parseSignedAddress } = await import("./verp");
    const u = signedAddress(secret, "unsubscribe", 77, "b.example.com");
    expect(parseSignedAddress(secret, "unsubscribe", u)).toBe(77);
    expect(parseVerpAddress(secret, u.replace("unsubscribe+", "bounces+"))).toBeUndefined();
  });
});
