import { describe, expect, it } from "vitest";
import { DEFAULT_DELIVERY_RETRY_SCHEDULE_MS } from "../config";
import { classifySmtpAnswer, cleanReply, enhancedCodeOf, internalErrorClassification } from "./classify";
import { heldRetryAt, nextAttemptAt, retryDelayMs } from "./retry-schedule";

describe("classifySmtpAnswer", () => {
  it("maps 250 to delivered and keeps the reply", () => {
    const c = classifySmtpAnswer({ responseCode: 250, response: "250 2.0.0 Ok: queued as ABC" });
    expect(c).toMatchObject({ outcome: "delivered", smtpCode: 250, enhancedCode: "2.0.0", diagnostic: "250 2.0.0 Ok: queued as ABC" });
  });
  it("maps 5.1.1 to a suppressing hard failure", () => {
    const c = classifySmtpAnswer({
      responseCode: 550,
      response: "Can't send mail - all recipients were rejected: 550 5.1.1 <bounce@example.org>: Recipient address rejected",
    });
    expect(c).toMatchObject({ outcome: "failed", enhancedCode: "5.1.1", bounceType: "hard", suppress: true });
    expect(c.diagnostic).toBe("550 5.1.1 <bounce@example.org>: Recipient address rejected");
  });
  it("maps 5.7.x to rejected without suppression", () => {
    expect(classifySmtpAnswer({ responseCode: 550, response: "550 5.7.1 Message rejected by policy" })).toMatchObject({
      outcome: "rejected",
      enhancedCode: "5.7.1",
      bounceType: "policy",
      suppress: false,
    });
  });
  it("maps other 5xx (with or without enhanced code) to failed", () => {
    expect(classifySmtpAnswer({ responseCode: 552, response: "552 5.2.2 Mailbox full" })).toMatchObject({ outcome: "failed", suppress: false });
    expect(classifySmtpAnswer({ responseCode: 554, response: "554 Transaction failed" })).toMatchObject({ outcome: "failed", enhancedCode: "5.0.0" });
  });
  it("defers 4xx, timeouts and refused connections", () => {
    expect(classifySmtpAnswer({ responseCode: 451, response: "451 4.7.1 Try again later" })).toMatchObject({ outcome: "deferred", enhancedCode: "4.7.1" });
    expect(classifySmtpAnswer({ errorCode: "ECONNREFUSED", response: "connect ECONNREFUSED 127.0.0.1:25" }).outcome).toBe("deferred");
    expect(classifySmtpAnswer({ errorCode: "ETIMEDOUT" }).outcome).toBe("deferred");
  });
  it("fails a domain that does not exist", () => {
    expect(classifySmtpAnswer({ errorCode: "ENOTFOUND", response: "no such domain" })).toMatchObject({ outcome: "failed", enhancedCode: "5.1.2" });
  });
  it("finds enhanced codes only where they stand", () => {
    expect(enhancedCodeOf("550 5.1.1 user unknown")).toBe("5.1.1");
    expect(enhancedCodeOf("550-5.7.26 unauthenticated")).toBe("5.7.26");
    expect(enhancedCodeOf("version 15.1.10 of foo")).toBeUndefined();
    expect(cleanReply("  250 Ok\r\n")).toBe("250 Ok");
  });
});

describe("retry schedule", () => {
  const policy = { scheduleMs: DEFAULT_DELIVERY_RETRY_SCHEDULE_MS, maxAgeMs: 24 * 3_600_000 };
  it("waits 1 min doubling to 1 h, then 1 h", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map((n) => retryDelayMs(n, policy.scheduleMs) / 60_000)).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60]);
  });
  it("stops when the next attempt would be past the maximum age", () => {
    const acceptedAt = new Date("2026-01-01T00:00:00Z");
    expect(nextAttemptAt(policy, { failedAttempts: 1, acceptedAt, now: acceptedAt })?.toISOString()).toBe("2026-01-01T00:01:00.000Z");
    const late = new Date(acceptedAt.getTime() + 23.5 * 3_600_000);
    expect(nextAttemptAt(policy, { failedAttempts: 20, acceptedAt, now: late })).toBeUndefined();
    const short = { scheduleMs: [1000, 1000], maxAgeMs: 3000 };
    const t = (s: number) => new Date(acceptedAt.getTime() + s * 1000);
    expect(nextAttemptAt(short, { failedAttempts: 1, acceptedAt, now: t(0) })).toEqual(t(1));
    expect(nextAttemptAt(short, { failedAttempts: 3, acceptedAt, now: t(2) })).toEqual(t(3));
    expect(nextAttemptAt(short, { failedAttempts: 4, acceptedAt, now: t(3) })).toBeUndefined();
  });
});

describe("a copy deferred for its destination", () => {
  it("is deferred until the hold's end without spending an attempt, with our reason whole", () => {
    const c = classifySmtpAnswer({ errorCode: "EHELD", response: "Held: gmail suspended by ops@example.com until resumed: 550 5.7.1 listed", heldUntil: 5000 });
    expect(c).toMatchObject({ outcome: "deferred", heldUntil: 5000, untried: true, enhancedCode: "4.4.5", smtpCode: null });
    expect(c.diagnostic).toBe("Held: gmail suspended by ops@example.com until resumed: 550 5.7.1 listed");
  });

  it("defers a suspension reply to the suspension's end: an attempt, not a rejection", () => {
    const c = classifySmtpAnswer({ responseCode: 550, response: "550 5.7.1 blocked using zen.spamhaus.org", heldUntil: 9000, tried: true });
    expect(c).toMatchObject({ outcome: "deferred", heldUntil: 9000, untried: false, smtpCode: 550, enhancedCode: "4.7.1" });
  });
});

describe("heldRetryAt", () => {
  const policy = { scheduleMs: [60_000], maxAgeMs: 3_600_000 };
  const acceptedAt = new Date(0);
  it("is the hold's end, never past the maximum age, and nothing once that age is reached", () => {
    expect(heldRetryAt(policy, { heldUntil: 120_000, acceptedAt, now: new Date(1000) })).toEqual(new Date(120_000));
    expect(heldRetryAt(policy, { heldUntil: 500, acceptedAt, now: new Date(1000) })).toEqual(new Date(1000));
    expect(heldRetryAt(policy, { heldUntil: 9_000_000, acceptedAt, now: new Date(1000) })).toEqual(new Date(3_600_000));
    expect(heldRetryAt(policy, { heldUntil: 9_000_000, acceptedAt, now: new Date(3_600_000) })).toBeUndefined();
  });
});

describe("internalErrorClassification", () => {
  it("defers with the class and Node code of the error, never its message", () => {
    const err = Object.assign(new TypeError("secret content <b>"), { code: "ERR_INVALID_ARG_TYPE" });
    expect(internalErrorClassification(err)).toEqual({
      outcome: "deferred",
      smtpCode: null,
      enhancedCode: "4.3.0",
      diagnostic: "Internal error: TypeError (ERR_INVALID_ARG_TYPE)",
      bounceType: "soft",
      suppress: false,
    });
    expect(internalErrorClassification(new RangeError("x")).diagnostic).toBe("Internal error: RangeError");
    expect(internalErrorClassification("a string").diagnostic).toBe("Internal error: string");
    expect(internalErrorClassification(Object.assign(new Error("x"), { code: "not a code; rm -rf" })).diagnostic).toBe("Internal error: Error");
  });
});
