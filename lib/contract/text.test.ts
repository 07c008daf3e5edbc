import { describe, expect, it } from "vitest";
import { isStorableText } from "./text";

describe("isStorableText", () => {
  it.each([
    ["plain ASCII", "Hello", true],
    ["accents, CJK and an emoji (a surrogate pair)", "Grüße 例え 💌", true],
    ["other control characters (storable; fields that refuse them check on their own)", "a\tb\u0001", true],
    ["a NUL", "a\u0000b", false],
    ["a lone high surrogate", "a\ud800b", false],
    ["a lone high surrogate at the end", "a\ud83d", false],
    ["a lone low surrogate", "\udc00a", false],
    ["a reversed pair", "\udc8c\ud83d", false],
  ])("%s", (_, text, storable) => {
    expect(isStorableText(text)).toBe(storable);
  });
});
