import { describe, expect, it } from "vitest";
import type { Connection, SmtpError } from "./smtp-connection";
import { answerOfFailure, answerOfNotTried, answerOfSent, laneOfRecipient, mayResendOnFreshConnection, replyCode, wasAnswered } from "./smtp-transaction";

const error = (fields: Partial<SmtpError>): SmtpError => Object.assign(new Error(fields.message ?? "failed"), fields);
const pooled = (over: Partial<Connection> = {}) => ({ phase: "MAIL", ...over }) as Connection;

describe("one SMTP transaction's outcome", () => {
  it("reads the reply code of a response, and takes 250 for an accepted message without one", () => {
    expect(replyCode("250 2.0.0 Ok: queued")).toBe(250);
    expect(replyCode("  421 4.4.2 timeout")).toBe(421);
    expect(replyCode("2500 no")).toBeUndefined();
    expect(replyCode(undefined)).toBeUndefined();
    expect(answerOfSent({ response: "250 Ok" } as never)).toEqual({ responseCode: 250, response: "250 Ok" });
    expect(answerOfSent({ response: "Ok" } as never)).toEqual({ responseCode: 250, response: "Ok" });
  });

  it("lanes a transaction by its recipient's domain, lowercased", () => {
    expect(laneOfRecipient("Someone@Example.COM")).toBe("example.com");
    expect(laneOfRecipient("a@b@c.example")).toBe("c.example");
  });

  it("answers a failure with the recipient's rejection first, then the error's reply, then its message", () => {
    const rejected = error({ responseCode: 554, response: "554 no", code: "EENVELOPE", rejectedErrors: [{ responseCode: 550, response: "550 no such user" }] });
    expect(answerOfFailure(rejected)).toEqual({ responseCode: 550, response: "550 no such user", errorCode: "EENVELOPE", enhancedCode: undefined });
    expect(answerOfFailure(error({ responseCode: 451, response: "451 later", code: "EMESSAGE" }))).toMatchObject({ responseCode: 451, response: "451 later" });
    expect(answerOfFailure(error({ message: "timed out", code: "ETIMEDOUT", enhancedCode: "4.4.2" }))).toEqual({
      responseCode: undefined,
      response: "timed out",
      errorCode: "ETIMEDOUT",
      enhancedCode: "4.4.2",
    });
    expect(answerOfNotTried(error({ message: "Not tried", code: "ESLOTWAIT", enhancedCode: "4.4.5" }))).toEqual({ response: "Not tried", errorCode: "ESLOTWAIT", enhancedCode: "4.4.5" });
  });

  it("counts a reply or a rejection as the peer's answer, a closed connection not", () => {
    expect(wasAnswered(error({ responseCode: 451 }))).toBe(true);
    expect(wasAnswered(error({ rejectedErrors: [] }))).toBe(true);
    expect(wasAnswered(error({ code: "ECONNECTION" }))).toBe(false);
  });

  it("sends once more on a fresh connection only when a reused one was closed before MAIL FROM was answered", () => {
    const closed = error({ code: "ECONNECTION" });
    const base = { reused: true, attempt: 0, connection: pooled(), err: closed };
    expect(mayResendOnFreshConnection(base)).toBe(true);
    expect(mayResendOnFreshConnection({ ...base, connection: pooled({ phase: "idle" }), err: error({ code: "ESOCKET" }) })).toBe(true);
    // A 421 that crossed our MAIL FROM: the peer's idle timeout.
    expect(mayResendOnFreshConnection({ ...base, err: error({ responseCode: 421, code: "EPROTOCOL" }) })).toBe(true);
    expect(mayResendOnFreshConnection({ ...base, reused: false })).toBe(false);
    expect(mayResendOnFreshConnection({ ...base, attempt: 1 })).toBe(false);
    expect(mayResendOnFreshConnection({ ...base, connection: pooled({ phase: "RCPT" }) })).toBe(false);
    expect(mayResendOnFreshConnection({ ...base, connection: pooled({ timedOut: { phase: "MAIL", limitMs: 1 } }) })).toBe(false);
    expect(mayResendOnFreshConnection({ ...base, err: error({ responseCode: 451, code: "ECONNECTION" }) })).toBe(false);
  });
});
