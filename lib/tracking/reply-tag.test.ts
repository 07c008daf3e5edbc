import { describe, expect, it } from "vitest";
import { parseReplyTag, REPLY_TAG_LENGTH, replyTag } from "./verp";

const secret = "s3cret-s3cret-s3cret";
const messageId = "0f8fad5b-d9cb-469f-a165-70867728950e";

describe("per-message reply tags", () => {
  it("round-trips a message id in a fixed-length lowercase tag", () => {
    const tag = replyTag(secret, messageId)!;
    expect(tag).toMatch(/^r-[a-z2-7]{26}[0-9a-f]{16}$/);
    expect(tag).toHaveLength(REPLY_TAG_LENGTH);
    expect(parseReplyTag(secret, tag)).toBe(messageId);
    // A relay that upper-cases the local part does not break it.
    expect(parseReplyTag(secret, tag.toUpperCase())).toBe(messageId);
    for (const id of ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff", "ABCDEF01-2345-6789-abcd-ef0123456789"]) {
      expect(parseReplyTag(secret, replyTag(secret, id)!)).toBe(id.toLowerCase());
    }
  });

  it("rejects a forged signature, another id under the same signature, another secret and other shapes", () => {
    const tag = replyTag(secret, messageId)!;
    const flip = (text: string, at: number, to: string) => text.slice(0, at) + (text[at] === to ? "a" : to) + text.slice(at + 1);
    expect(parseReplyTag(secret, flip(tag, tag.length - 1, "0"))).toBeUndefined();
    expect(parseReplyTag(secret, flip(tag, 5, "b"))).toBeUndefined();
    expect(parseReplyTag("another-secret-value", tag)).toBeUndefined();
    // The id's last character carries 3 bits: a second spelling of the same id is refused.
    const last = 2 + 25;
    expect(parseReplyTag(secret, flip(tag, last, tag[last] === "a" ? "b" : String.fromCharCode(tag.charCodeAt(last) + 1)))).toBeUndefined();
    for (const bad of ["", "r-", "support", tag.slice(1), `${tag}0`, tag.replace("r-", "x-"), "r-" + "1".repeat(42), "a".repeat(10_000)]) {
      expect(parseReplyTag(secret, bad)).toBeUndefined();
    }
    expect(replyTag(secret, "not-a-uuid")).toBeUndefined();
  });
});
