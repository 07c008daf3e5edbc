import { describe, expect, it } from "vitest";
import { parseMessageContent } from "../domain/sending/email-request/message-content";
import { parseReplyTag, replyTag } from "../tracking/verp";
import { withReplyAddress } from "./reply-address";

const secret = "s3cret-s3cret-s3cret";
const messageId = "0f8fad5b-d9cb-469f-a165-70867728950e";
const tag = replyTag(secret, messageId)!;

const content = (extra: Record<string, unknown> = {}) =>
  parseMessageContent({ from: { name: "Shop", email: "shop@a.example" }, to: [{ email: "c@example.org" }], subject: "s", text: "t", ...extra });

describe("per-message reply addresses in outbound content", () => {
  it("tags a Reply-To that an exact or a domain route of the account receives, keeping its name", () => {
    const c = content({ replyTo: [{ name: "Help", email: "Help@A.example" }, { email: "other@elsewhere.example" }] });
    for (const routes of [[{ match: "help@a.example" }], [{ match: "*@a.example" }]]) {
      const out = withReplyAddress(c, routes, secret, messageId);
      expect(out.replyTo).toEqual([{ name: "Help", email: `Help+${tag}@A.example` }, { name: "", email: "other@elsewhere.example" }]);
      expect(parseReplyTag(secret, out.replyTo[0]!.email.split("+")[1]!.split("@")[0]!)).toBe(messageId);
    }
  });

  it("adds a Reply-To from a routed From when the message has none; a Reply-To that is not routed wins over a routed From", () => {
    expect(withReplyAddress(content(), [{ match: "*@a.example" }], secret, messageId).replyTo).toEqual([{ name: "Shop", email: `shop+${tag}@a.example` }]);
    const c = content({ replyTo: [{ email: "desk@b.example" }] });
    expect(withReplyAddress(c, [{ match: "*@a.example" }], secret, messageId)).toBe(c);
  });

  it("leaves the content as it is: no routes, an unrouted address, a +tag already, a local part too long, a raw MIME submission", () => {
    const routes = [{ match: "*@a.example" }];
    for (const c of [
      content({ replyTo: [{ email: "help@b.example" }] }),
      content({ replyTo: [{ email: "help+orders@a.example" }] }),
      content({ replyTo: [{ email: `${"x".repeat(20)}@a.example` }] }),
      content({ mime: Buffer.from("Subject: s\r\n\r\nhi\r\n").toString("base64") }),
    ]) {
      expect(withReplyAddress(c, routes, secret, messageId)).toBe(c);
    }
    const plain = content();
    expect(withReplyAddress(plain, [], secret, messageId)).toBe(plain);
    expect(withReplyAddress(plain, [{ match: "support@a.example" }], secret, messageId)).toBe(plain);
  });
});
