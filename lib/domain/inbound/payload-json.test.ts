import { describe, expect, it } from "vitest";
import { payloadJsonBytes, storableText, type InboundPayload } from "./payload";

const address = { Email: "a@b.example", Name: "A", MailboxHash: "" };
const payload = (attachments: InboundPayload["Attachments"]): InboundPayload => ({
  From: "a@b.example",
  FromName: 'Ann "Attachments":[] "Content":""',
  FromFull: address,
  To: "c@d.example",
  ToFull: [address],
  Cc: "",
  CcFull: [],
  Bcc: "",
  BccFull: [],
  OriginalRecipient: "c@d.example",
  ReplyTo: "",
  Subject: 'Quotes " and \\ and \u2028 and ✓',
  MessageID: "0b8a3c1e-1234-4abc-8def-0123456789ab",
  Date: "",
  MailboxHash: "",
  TextBody: "t",
  HtmlBody: "<p>h</p>",
  StrippedTextReply: "t",
  Tag: "",
  Headers: [{ Name: "X", Value: '"Content":""' }],
  Attachments: attachments,
  RepliedToMessageID: null,
  Authentication: { SPF: "none", DKIM: "none", DMARC: "none" },
  OriginalRecipients: [{ Email: "c@d.example", MailboxHash: "" }],
});

describe("payloadJsonBytes", () => {
  it("is JSON.stringify's text exactly, with attachments or none, whatever the strings hold", async () => {
    // Sizes around the 768 KB step and its multiples of 3, an empty one, and one sent as a link.
    const contents = [Buffer.from("one"), Buffer.alloc(0), Buffer.alloc(3 * 256 * 1024 + 1, 7), Buffer.from(Array.from({ length: 2 * 3 * 256 * 1024 + 2 }, (_, i) => i % 256)), undefined];
    const shells = contents.map((c, i) => ({ Name: i === 0 ? 'x","Content":"' : `a${i}.bin`, Content: "", ContentType: "application/octet-stream", ContentLength: c?.length ?? 20, ContentID: "" }));
    shells[4] = { ...shells[4]!, DownloadURL: "https://x.example/t/inbound/abc" } as (typeof shells)[number];
    const expected = payload(shells.map((s, i) => ({ ...s, Content: contents[i]?.toString("base64") ?? "" })));
    const bytes = await payloadJsonBytes({ payload: payload(shells), inlineContents: contents });
    expect(bytes.toString("utf8")).toBe(JSON.stringify(expected));
    expect((await payloadJsonBytes({ payload: payload([]), inlineContents: [] })).toString("utf8")).toBe(JSON.stringify(payload([])));
  });
});

describe("storableText", () => {
  it("turns U+0000 and lone surrogates into U+FFFD, which jsonb can hold, and leaves the rest as it is", async () => {
    expect(storableText("a\u0000b\ud800c\udc00d")).toBe("a\ufffdb\ufffdc\ufffdd");
    expect(storableText("ok 😀 \u2028")).toBe("ok 😀 \u2028");
    const bytes = await payloadJsonBytes({ payload: { ...payload([]), TextBody: "x\u0000y", Headers: [{ Name: "X", Value: "\ud83d" }] }, inlineContents: [] });
    const back = JSON.parse(bytes.toString("utf8")) as InboundPayload;
    expect([back.TextBody, back.Headers[0]!.Value]).toEqual(["x\ufffdy", "\ufffd"]);
  });

  it("keeps text that only looks like those escapes: a backslash and `u0000`, `ud800`, and a whole surrogate pair", async () => {
    const strings = ["\\u0000", "\\ud800\\udc00", "😀", "\\\u0000"];
    const bytes = await payloadJsonBytes({ payload: { ...payload([]), Headers: strings.map((Value) => ({ Name: "X", Value })) }, inlineContents: [] });
    const back = JSON.parse(bytes.toString("utf8")) as InboundPayload;
    expect(back.Headers.map((h) => h.Value)).toEqual(["\\u0000", "\\ud800\\udc00", "😀", "\\\ufffd"]);
  });
});
