import { describe, expect, it } from "vitest";
import { signedAddress } from "../tracking/verp";
import { listUnsubscribeMailtos, signedRecipientIds } from "./handle-message";
import type { ParsedReport } from "./report-parser";

const secret = "a-test-secret-of-enough-length";

function report(o: Partial<ParsedReport["original"]> & { mailFrom?: string }): ParsedReport {
  return {
    kind: "arf",
    recipients: [],
    feedback: o.mailFrom === undefined ? undefined : { type: "abuse", originalRcptTo: "", originalMailFrom: o.mailFrom, userAgent: "" },
    original: { messageId: "", to: [], returnPath: o.returnPath ?? "", listUnsubscribe: o.listUnsubscribe ?? "" },
    subject: "",
  };
}

describe("listUnsubscribeMailtos", () => {
  it("takes the mailto addresses of a List-Unsubscribe value, without the query", () => {
    expect(listUnsubscribeMailtos("<https://x.example/t/u/abc>, <mailto:unsubscribe+1-00@b.example?subject=unsubscribe>")).toEqual([
      "unsubscribe+1-00@b.example",
    ]);
    expect(listUnsubscribeMailtos("")).toEqual([]);
    expect(listUnsubscribeMailtos("<mailto:a%40b@c>")).toEqual(["a@b@c"]);
  });

  it("is linear on hostile input", () => {
    const t = Date.now();
    listUnsubscribeMailtos("<mailto:".repeat(200_000));
    listUnsubscribeMailtos(",".repeat(1_000_000));
    expect(Date.now() - t).toBeLessThan(500);
  });
});

describe("signedRecipientIds", () => {
  it("finds the recipient of each signed token and where it was", () => {
    const verp = signedAddress(secret, "bounces", 42, "bounces.example.com");
    const mailto = signedAddress(secret, "unsubscribe", 42, "bounces.example.com");
    const r = report({ mailFrom: verp, returnPath: verp, listUnsubscribe: `<https://x/t/u/z>, <mailto:${mailto}?subject=unsubscribe>` });
    expect(signedRecipientIds(secret, r, [verp, "postmaster@example.com"])).toEqual([
      { id: 42, source: "envelope" },
      { id: 42, source: "original-mail-from" },
      { id: 42, source: "return-path" },
      { id: 42, source: "list-unsubscribe" },
    ]);
  });

  it("ignores forged signatures, the wrong purpose and plain addresses", () => {
    const verp = signedAddress(secret, "bounces", 42, "b.example");
    const forged = verp.replace(/-([0-9a-f])/, (_, c: string) => `-${c === "0" ? "1" : "0"}`);
    const wrongPurpose = signedAddress(secret, "unsubscribe", 42, "b.example"); // as a VERP envelope recipient
    const r = report({ returnPath: forged, listUnsubscribe: `<mailto:${verp}>` });
    expect(signedRecipientIds(secret, r, [forged, wrongPurpose, "bob@example.org"])).toEqual([]);
    expect(signedRecipientIds("another-secret-of-some-length", report({ returnPath: verp }), [])).toEqual([]);
  });
});
