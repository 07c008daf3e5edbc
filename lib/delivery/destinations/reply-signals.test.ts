import { describe, expect, it } from "vitest";
import { replySignalOf } from "./reply-signals";

const signal = (responseCode: number, response: string) => replySignalOf({ responseCode, response });

describe("replySignalOf", () => {
  it("throttles on rate and connection complaints", () => {
    expect(signal(421, "421 4.7.28 [192.0.2.1] Our system has detected an unusual rate of unsolicited mail originating from your IP address.")).toBe("throttle");
    expect(signal(421, "421 4.7.0 [TS01] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints")).toBe("throttle");
    expect(signal(421, "421 4.7.0 [TS02] Messages from 192.0.2.1 temporarily deferred")).toBe("throttle");
    expect(signal(451, "451 4.7.500 Server busy. Please try again later from [192.0.2.1]. The server has exceeded the maximum number of connections")).toBe("throttle");
    expect(signal(450, "450 4.7.0 Rate limit exceeded")).toBe("throttle");
  });

  it("suspends on TSS04 and block-list rejections", () => {
    expect(signal(421, "421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints")).toBe("suspend");
    expect(signal(550, "550 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org")).toBe("suspend");
    expect(signal(554, "554 5.7.1 Your IP 192.0.2.1 is listed on a blocklist")).toBe("suspend");
  });

  it("says nothing of an ordinary answer", () => {
    expect(signal(250, "250 2.0.0 OK rate")).toBeUndefined();
    expect(signal(550, "550 5.1.1 No such user")).toBeUndefined();
    expect(signal(550, "550 5.7.1 Relaying denied")).toBeUndefined();
    expect(signal(451, "451 4.3.0 Temporary local problem")).toBeUndefined();
    expect(replySignalOf({ response: "connection refused" })).toBeUndefined();
  });

  it("looks at the first 512 characters only", () => {
    expect(signal(550, `550 5.7.1 ${"x".repeat(600)} spamhaus`)).toBeUndefined();
    expect(signal(550, `550 5.7.1 spamhaus ${"x".repeat(1_000_000)}`)).toBe("suspend");
  });
});
