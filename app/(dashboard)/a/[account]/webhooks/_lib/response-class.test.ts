import { describe, expect, it } from "vitest";
import { NEVER_CALLED_AT } from "@/lib/contract/webhooks";
import { describeLastResponse } from "./response-class";

describe("describeLastResponse", () => {
  const at = "2026-01-02T03:04:05.000Z";
  it("says never called for the placeholder date", () => {
    expect(describeLastResponse("0", NEVER_CALLED_AT)).toEqual({ text: "never called", tone: "neutral", neverCalled: true });
  });
  it("colours by class", () => {
    expect(describeLastResponse("204", at).tone).toBe("success");
    expect(describeLastResponse("302", at).tone).toBe("info");
    expect(describeLastResponse("406", at).tone).toBe("warning");
    expect(describeLastResponse("503", at).tone).toBe("danger");
  });
  it("reads 0 after an attempt as no answer (timeout, refused connection)", () => {
    expect(describeLastResponse("0", at)).toEqual({ text: "no answer", tone: "danger", neverCalled: false });
  });
});
