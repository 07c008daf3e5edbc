import { describe, expect, it } from "vitest";
import { parseTemplateId, parseTemplateRequest, parseVersion } from "./templates";

describe("parseTemplateRequest: POST /email's rules for Subject and bodies, plus the template's own", () => {
  it("accepts HTML or plain text, and trims the name", async () => {
    expect(await parseTemplateRequest({ Name: " Receipt ", Subject: "Hi {{name}}", PlainContent: "Hello {{name}}" }, "acct")).toEqual({
      ok: true,
      name: "Receipt",
      content: { subject: "Hi {{name}}", html: null, plain: "Hello {{name}}" },
    });
  });

  it("answers with POST /email's codes: 8 without a subject, 10 without any body, 422 for unstorable text", async () => {
    const errors = async (body: unknown) => {
      const r = await parseTemplateRequest(body, "acct");
      return r.ok ? [] : r.errors.map((e) => [e.Code, e.Field]);
    };
    expect(await errors({ Name: "x", HTMLContent: "<p>x</p>" })).toEqual([[8, "Subject"]]);
    expect(await errors({ Name: "x", Subject: "s" })).toEqual([[10, "HTMLContent"]]);
    expect(await errors({ Name: "x", Subject: "s", PlainContent: "a\u0000b" })).toEqual([[422, "PlainContent"]]);
    expect(await errors({ Name: "", Subject: "s", PlainContent: "x" })).toEqual([[422, "Name"]]);
    expect(await errors({ Name: "x".repeat(201), Subject: "s", PlainContent: "x" })).toEqual([[422, "Name"]]);
    expect(await errors([])).toEqual([[422, undefined]]);
  });

  it("refuses a part Mustache cannot parse, and more than 1 MiB in all, naming the part", async () => {
    const r = await parseTemplateRequest({ Name: "x", Subject: "s", HTMLContent: "<p>ok</p>", PlainContent: "{{#open}}" }, "acct");
    expect(r).toEqual({ ok: false, errors: [{ Code: 422, Message: "Invalid request parameters", Field: "PlainContent" }] });
    const big = await parseTemplateRequest({ Name: "x", Subject: "s", HTMLContent: "é".repeat(400_000), PlainContent: "x".repeat(300_000) }, "acct");
    expect(big.ok ? undefined : big.errors[0]!.Field).toBe("HTMLContent");
  });
});

describe("TemplateID and TemplateVersion as a body gives them", () => {
  it("takes positive integers, or their digits as a string", () => {
    expect([parseTemplateId(12), parseTemplateId("12"), parseTemplateId(0), parseTemplateId(1.5), parseTemplateId("1e3"), parseTemplateId(2 ** 60)]).toEqual([12, 12, null, null, null, null]);
    expect([parseVersion(undefined), parseVersion(null), parseVersion(3), parseVersion("3"), parseVersion(0), parseVersion(2 ** 31)]).toEqual([undefined, undefined, 3, 3, null, null]);
  });
});
