import { describe, expect, it } from "vitest";
import { errorItem } from "@/lib/contract/errors";
import { mapApiErrors } from "./api-errors";
import { emptyDraft, fieldPath, messageBytes, toEmailRequest, validateDraft, type Draft } from "./draft";

function draft(over: Partial<Draft> = {}): Draft {
  return {
    ...emptyDraft("example.com"),
    from: { local: "hello", domain: "example.com", name: "Demo" },
    to: [{ name: "Ann", email: "ann@example.org" }],
    subject: "Hi",
    text: "Hello",
    ...over,
  };
}

describe("compose draft", () => {
  it("builds the POST /email body, dropping blank rows and empty optional members", () => {
    const req = toEmailRequest(
      draft({
        to: [{ name: "", email: "" }, { name: "Ann", email: "ann@example.org" }],
        html: "<p>Hi</p>",
        tags: "a, b,,",
        headers: [{ name: "X-Campaign", value: "7" }, { name: "", value: "" }],
        attachments: [{ filename: "logo.png", type: "image/png", size: 3, disposition: "inline", contentId: "logo" }],
      }),
      ["AAEC"],
    );
    expect(req).toEqual({
      From: { email: "hello@example.com", name: "Demo" },
      To: [{ name: "Ann", email: "ann@example.org" }],
      Subject: "Hi",
      ContentType: "HTML",
      HTMLContent: "<p>Hi</p>",
      PlainContent: "Hello",
      Tags: ["a", "b"],
      Headers: { "X-Campaign": "7" },
      Attachments: [{ Filename: "logo.png", Content: "AAEC", Type: "image/png", Disposition: "inline", ContentId: "logo" }],
    });
  });

  it("accepts a complete draft", () => {
    expect(validateDraft(draft())).toEqual({});
  });

  it("enforces the spec's recipient counts on the list field", () => {
    const bcc = Array.from({ length: 6 }, (_, i) => ({ name: "", email: `b${i}@example.org` }));
    const errors = validateDraft(draft({ bcc }));
    expect(errors.BCC).toMatch(/At most 5 BCC/);
    expect(validateDraft(draft({ bcc: bcc.slice(0, 5) })).BCC).toBeUndefined();
    expect(validateDraft(draft({ to: [] })).To).toMatch(/at least one/);
  });

  it("names the row of a bad address, owned headers and the 10 MB total", () => {
    const errors = validateDraft(
      draft({
        cc: [{ name: "", email: "" }, { name: "", email: "nope" }],
        headers: [{ name: "Subject", value: "x" }],
        attachments: [{ filename: "big.bin", type: "", size: 10 * 1024 * 1024 + 1, disposition: "attachment", contentId: "" }],
      }),
    );
    expect(errors["CC[1].email"]).toBeDefined();
    expect(errors["Headers[0]"]).toMatch(/set by the service/);
    expect(errors.Attachments).toMatch(/10 MB/);
  });

  it("counts bodies and attachments as the API does", () => {
    expect(messageBytes({ html: "é", text: "ab", attachments: [{ filename: "a", type: "", size: 10, disposition: "attachment", contentId: "" }] })).toBe(14);
  });

  it("writes zod paths as the API's Field paths", () => {
    expect(fieldPath(["To", 2, "email"])).toBe("To[2].email");
    expect(fieldPath(["Attachments", 0, "Content"])).toBe("Attachments[0].Content");
  });

  it("maps API errors back onto the form's rows", () => {
    const d = draft({ to: [{ name: "", email: "" }, { name: "", email: "a@x.org" }, { name: "", email: "bad@" }] });
    const errors = mapApiErrors([errorItem(19, "To[1].email"), errorItem(32, "From.email"), errorItem(14)], d);
    expect(errors["To[2].email"]).toMatch(/code 19/);
    expect(errors["From.email"]).toMatch(/not a verified sender domain/);
    expect(errors._form).toMatch(/suppression/);
  });
});
