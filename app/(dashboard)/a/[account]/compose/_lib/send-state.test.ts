import { describe, expect, it } from "vitest";
import type { FieldErrors } from "./draft";
import { hasErrors, hasFieldErrors, isBusy, NETWORK_FAILURE, progressState, readSendAnswer, sendButtonLabel, UPLOAD_STARTED } from "./send-state";

describe("compose send states", () => {
  it("uploads until every byte is out, then waits for the API", () => {
    expect(progressState(10, 100)).toEqual({ kind: "uploading", loaded: 10, total: 100 });
    expect(progressState(100, 100)).toEqual({ kind: "waiting" });
    expect(UPLOAD_STARTED).toEqual({ kind: "uploading", loaded: 0, total: 1 });
  });

  it("is busy, and says so on the button, while uploading or waiting", () => {
    expect([UPLOAD_STARTED, { kind: "waiting" } as const, { kind: "idle" } as const, { kind: "sent", messageId: "m" } as const].map((s) => [isBusy(s), sendButtonLabel(s)])).toEqual([
      [true, "Uploading…"],
      [true, "Sending…"],
      [false, "Send"],
      [false, "Send"],
    ]);
  });
});

describe("reading the /compose/send answer", () => {
  it("takes the MessageID of an accepted message", () => {
    expect(readSendAnswer({ status: 200, body: { ok: true, messageId: "abc" } })).toEqual({ kind: "sent", messageId: "abc" });
  });

  it("explains an ended session and a role that may not send, whatever the body says", () => {
    expect(readSendAnswer({ status: 401, body: { ok: true, messageId: "abc" } })).toEqual({
      kind: "refused",
      errors: { _form: "Your session ended. Sign in again in another tab, then send: the form keeps its content." },
    });
    expect(readSendAnswer({ status: 403, body: null })).toEqual({ kind: "refused", errors: { _form: "Your role may not send messages." } });
  });

  it("puts the route's field errors on the form, or names the status when there are none", () => {
    expect(readSendAnswer({ status: 400, body: { ok: false, errors: { Subject: "Enter a subject" } } })).toEqual({ kind: "refused", errors: { Subject: "Enter a subject" } });
    expect(readSendAnswer({ status: 502, body: null })).toEqual({ kind: "refused", errors: { _form: "The server answered 502. Try again." } });
    expect(readSendAnswer({ status: 200, body: { ok: true } })).toEqual({ kind: "refused", errors: { _form: "The server answered 200. Try again." } });
  });

  it("keeps the form's content on a network failure", () => {
    expect(NETWORK_FAILURE).toEqual({ kind: "refused", errors: { _form: "The upload failed (network). The form keeps its content: send again." } });
  });

  it("tells errors on fields from an error of the whole form", () => {
    const cases: FieldErrors[] = [{}, { _form: "x" }, { Subject: "y" }];
    expect(cases.map((e) => [hasErrors(e), hasFieldErrors(e)])).toEqual([
      [false, false],
      [true, false],
      [true, true],
    ]);
  });
});
