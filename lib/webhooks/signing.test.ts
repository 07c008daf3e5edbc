import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { notificationSchema } from "../contract/notifications";
import { generateSigningKey } from "../domain/accounts/accounts";
import { decodeSigningKey, newSignatureToken, signNotification, webhookMessageId } from "./signing";

/** A receiver's check, written from docs/contract.md §10.3 alone: hex HMAC-SHA256 of Timestamp+Token keyed with the key as shown. */
function receiverVerifiesMailgun(body: string, signingKey: string): boolean {
  const { Signature } = JSON.parse(body) as { Signature: { Timestamp: number; Token: string; Signature: string } };
  const expected = createHmac("sha256", signingKey).update(String(Signature.Timestamp) + Signature.Token).digest();
  const given = Buffer.from(Signature.Signature, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const eventData = { Event: "delivered", Domain: "example.com", MessageID: "5a0b7e0e-4c1e-4b7e-9d1e-0c0f6c1f2a3b", To: "ann@example.net" };

describe("signNotification", () => {
  const key = generateSigningKey();

  it("produces a body of the contract's shape with a 50-hex token", () => {
    const { body } = signNotification({ signingKey: key, notificationId: 7, eventData });
    const parsed = notificationSchema.parse(JSON.parse(body));
    expect(parsed.Signature.Token).toMatch(/^[0-9a-f]{50}$/);
    expect(parsed.EventData).toEqual(eventData);
  });

  it("signs the body with the Mailgun scheme that an independent verifier accepts", () => {
    const { body } = signNotification({ signingKey: key, notificationId: 7, eventData });
    expect(receiverVerifiesMailgun(body, key)).toBe(true);
    expect(receiverVerifiesMailgun(body, generateSigningKey())).toBe(false);
  });

  it("signs the headers so that the standardwebhooks package verifies them", () => {
    const { body, headers } = signNotification({ signingKey: key, notificationId: 7, eventData });
    expect(headers["webhook-id"]).toBe(webhookMessageId(7));
    expect(new Webhook(key).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSigningKey()).verify(body, headers)).toThrow();
    expect(() => new Webhook(key).verify(body.replace("ann@", "bob@"), headers)).toThrow();
  });

  it("uses a new token and timestamp per attempt but the same webhook-id", () => {
    const a = signNotification({ signingKey: key, notificationId: 9, eventData, now: new Date(1_700_000_000_000) });
    const b = signNotification({ signingKey: key, notificationId: 9, eventData, now: new Date(1_700_000_300_000) });
    expect(JSON.parse(a.body).Signature.Token).not.toBe(JSON.parse(b.body).Signature.Token);
    expect(JSON.parse(a.body).Signature.Timestamp).toBe(1_700_000_000);
    expect(b.headers["webhook-timestamp"]).toBe("1700000300");
    expect(a.headers["webhook-id"]).toBe(b.headers["webhook-id"]);
  });

  it("matches a known vector", () => {
    const fixedKey = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const { body, headers } = signNotification({
      signingKey: fixedKey,
      notificationId: 1,
      eventData: { Event: "delivered" },
      now: new Date(1_614_265_330_000),
      token: "a".repeat(50),
    });
    const expectedMailgun = createHmac("sha256", fixedKey).update(`1614265330${"a".repeat(50)}`).digest("hex");
    expect(JSON.parse(body).Signature.Signature).toBe(expectedMailgun);
    const expectedStd = createHmac("sha256", decodeSigningKey(fixedKey)).update(`msg_mailroom_1.1614265330.${body}`).digest("base64");
    expect(headers["webhook-signature"]).toBe(`v1,${expectedStd}`);
  });

  it("draws tokens at random", () => {
    const tokens = new Set(Array.from({ length: 100 }, newSignatureToken));
    expect(tokens.size).toBe(100);
  });
});
