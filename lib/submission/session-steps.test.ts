import { describe, expect, it } from "vitest";
import type { AppContext } from "../context";
import { BacklogFullError } from "../domain/sending/delivery-backlog";
import { MAX_ENVELOPE_RECIPIENTS } from "../domain/submission/recipient-kinds";
import { REPLY } from "../domain/submission/replies";
import { authRefusal, envelopeOf, failedReply, recipientRefusal, refuse, senderRefusal } from "./session-steps";

/** The acceptance state MAIL FROM reads: the disk's level and the delivery backlog. */
const acceptance = (level: "ok" | "critical" = "ok", backlogFull = false) =>
  ({ disk: { status: () => ({ level }) }, backlog: { full: () => backlogFull } }) as unknown as Pick<AppContext, "disk" | "backlog">;

/** An outage log that answers `fault`, and the error lines written. */
function outageCtx(fault: "disk-full" | "unavailable" | undefined) {
  const errors: unknown[] = [];
  const ctx = { outage: { report: () => fault }, log: { error: (obj: unknown) => errors.push(obj) } } as unknown as Pick<AppContext, "outage" | "log">;
  return { ctx, errors };
}

describe("the steps of a submission session", () => {
  it("refuses with the reply's code and text", () => {
    expect(refuse(REPLY.badSender)).toMatchObject({ message: REPLY.badSender.text, responseCode: 501 });
  });

  it("tells a suspended account from a bad key", () => {
    expect(authRefusal(12)).toBe(REPLY.accountSuspended);
    expect(authRefusal(10)).toBe(REPLY.badCredentials);
  });

  it("answers a check that threw: a full backlog 451, a disk-full database 452, an outage 451; only a defect is logged", () => {
    const down = outageCtx("unavailable");
    expect(failedReply(down.ctx, new BacklogFullError(1001, 1000), "x")).toBe(REPLY.backlogFull);
    expect(failedReply(down.ctx, new Error("ECONNREFUSED"), "x")).toBe(REPLY.temporary);
    expect(failedReply(outageCtx("disk-full").ctx, new Error("No space"), "x")).toBe(REPLY.diskFull);
    expect(down.errors).toEqual([]);
    const defect = outageCtx(undefined);
    expect(failedReply(defect.ctx, new TypeError("bug"), "SMTP submission: RCPT check failed", { rcpt: 1 })).toBe(REPLY.temporary);
    expect(defect.errors).toEqual([expect.objectContaining({ rcpt: 1 })]);
  });

  it("checks MAIL FROM in order: the address, the disk, the backlog, the key's sender domains", () => {
    const anyDomain = () => null;
    expect(senderRefusal("not an address", acceptance("critical", true), anyDomain)).toBe(REPLY.badSender);
    expect(senderRefusal("a@example.com", acceptance("critical", true), anyDomain)).toBe(REPLY.diskFull);
    expect(senderRefusal("a@example.com", acceptance("ok", true), anyDomain)).toBe(REPLY.backlogFull);
    expect(senderRefusal("a@example.com", acceptance(), () => ["example.org"])).toEqual(REPLY.senderNotAllowedForKey("example.com"));
    expect(senderRefusal("a@example.com", acceptance(), () => ["example.com"])).toBeUndefined();
    expect(senderRefusal("a@example.com", acceptance(), anyDomain)).toBeUndefined();
  });

  it("refuses a bad RCPT address, and one past the envelope's recipients", () => {
    expect(recipientRefusal("nope", 0)).toBe(REPLY.badRecipient);
    expect(recipientRefusal("b@example.com", MAX_ENVELOPE_RECIPIENTS - 1)).toBeUndefined();
    expect(recipientRefusal("b@example.com", MAX_ENVELOPE_RECIPIENTS)).toMatchObject({ code: 452 });
  });

  it("reads the envelope of a session, an empty MAIL FROM as \"\"", () => {
    const rcptTo = [{ address: "b@example.com", args: false as const }];
    expect(envelopeOf({ envelope: { mailFrom: { address: "a@example.com", args: false }, rcptTo } })).toEqual({ mailFrom: "a@example.com", rcptTo: ["b@example.com"] });
    expect(envelopeOf({ envelope: { mailFrom: false, rcptTo: [] } })).toEqual({ mailFrom: "", rcptTo: [] });
  });
});
