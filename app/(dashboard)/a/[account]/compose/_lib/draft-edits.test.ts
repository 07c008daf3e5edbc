import { describe, expect, it } from "vitest";
import { emptyDraft } from "./draft";
import {
  addHeader,
  appendInlineImage,
  editHeader,
  firstVerifiedDomain,
  localPartOf,
  removeHeader,
  unverifiedDomainHint,
  withAttachments,
  withTemplate,
} from "./draft-edits";

const domains = [
  { name: "new.example", verified: false },
  { name: "example.com", verified: true },
];

describe("compose draft edits", () => {
  it("starts From the first verified domain, or none", () => {
    expect(firstVerifiedDomain(domains)).toBe("example.com");
    expect(firstVerifiedDomain([{ name: "new.example", verified: false }])).toBe("");
  });

  it("hints only at a chosen domain that is not verified", () => {
    expect(unverifiedDomainHint(domains, "new.example")).toBe("Not verified: the API will refuse it (code 32)");
    expect(unverifiedDomainHint(domains, "example.com")).toBeUndefined();
    expect(unverifiedDomainHint(domains, "")).toBeUndefined();
  });

  it("keeps the local part of a pasted address", () => {
    expect(localPartOf("hello@example.com")).toBe("hello");
    expect(localPartOf("hello")).toBe("hello");
  });

  it("describes the files with their real sizes", () => {
    const meta = { filename: "a.pdf", type: "application/pdf", size: 0, disposition: "attachment" as const, contentId: "" };
    expect(withAttachments(emptyDraft("example.com"), [{ file: { size: 42 }, meta }]).attachments).toEqual([{ ...meta, size: 42 }]);
  });

  it("takes a template's subject and bodies and keeps the rest", () => {
    const draft = { ...emptyDraft("example.com"), subject: "old", tags: "a" };
    expect(withTemplate(draft, { subject: "Hi {{name}}", html: "<p>x</p>", text: "x" })).toEqual({ ...draft, subject: "Hi {{name}}", html: "<p>x</p>", text: "x" });
  });

  it("appends an inline image on a line of its own, quotes dropped from its alt text", () => {
    expect(appendInlineImage("", "logo", 'the "logo".png')).toBe('<img src="cid:logo" alt="the logo.png">\n');
    expect(appendInlineImage("<p>Hi</p>", "logo", "logo.png")).toBe('<p>Hi</p>\n<img src="cid:logo" alt="logo.png">\n');
    expect(appendInlineImage("<p>Hi</p>\n", "logo", "logo.png")).toBe('<p>Hi</p>\n<img src="cid:logo" alt="logo.png">\n');
  });

  it("adds, edits and removes custom header rows by index", () => {
    const one = addHeader([]);
    expect(one).toEqual([{ name: "", value: "" }]);
    const two = editHeader(addHeader(editHeader(one, 0, { name: "X-Campaign" })), 1, { value: "7" });
    expect(two).toEqual([
      { name: "X-Campaign", value: "" },
      { name: "", value: "7" },
    ]);
    expect(removeHeader(two, 0)).toEqual([{ name: "", value: "7" }]);
  });
});
