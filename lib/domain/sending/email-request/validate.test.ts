import { describe, expect, it } from "vitest";
import { httpStatusOf, type ErrorCode } from "../../../contract/errors";
import { MAX_MESSAGE_BYTES } from "../../../contract/email";
import { JsonNumberText } from "../../shared/json-number";
import { validateEmailRequest } from "./validate";

/**
 * Table-driven: each row is a request (a patch over a valid base request;
 * `undefined` deletes a field) and the expected HTTP status with the
 * ordered [code, field] list. Covers every rule and error code of
 * docs/contract.md §5.1–§5.13 (POST /email steps 1–13).
 */

const base = {
  From: { name: "Ann", email: "ann@example.com" },
  To: [{ name: "Bob", email: "bob@example.net" }],
  Subject: "Hello",
  ContentType: "HTML",
  HTMLContent: "<p>Hello</p>",
};

type Expect = { status: number; errors: [ErrorCode, string | undefined][] } | "ok";
type Row = [string, Record<string, unknown> | unknown, Expect];

const addr = (email: string, name?: unknown) => (name === undefined ? { email } : { name, email });
const many = (n: number, f: (i: number) => unknown = (i) => addr(`r${i}@example.net`)) => Array.from({ length: n }, (_, i) => f(i));
const b64 = (text: string) => Buffer.from(text).toString("base64");
const file = (extra: Record<string, unknown> = {}) => ({ Content: b64("hello"), Filename: "a.txt", ...extra });

const rows: Row[] = [
  // Step 1: the body.
  ["body is an array", [base], { status: 422, errors: [[422, undefined]] }],
  ["body is a string", "hello", { status: 422, errors: [[422, undefined]] }],
  ["body is null", null, { status: 422, errors: [[422, undefined]] }],
  // Step 2: From.
  ["valid base request", {}, "ok"],
  ["From missing", { From: undefined }, { status: 400, errors: [[3, "From"]] }],
  ["From null", { From: null }, { status: 400, errors: [[3, "From"]] }],
  ["From a number", { From: 5 }, { status: 400, errors: [[3, "From"]] }],
  ["From an array", { From: [addr("a@example.com")] }, { status: 400, errors: [[3, "From"]] }],
  ["From without email", { From: { name: "Ann" } }, { status: 400, errors: [[3, "From.email"]] }],
  ["From with empty email", { From: { name: "Ann", email: "" } }, { status: 400, errors: [[3, "From.email"]] }],
  ["From email not a string", { From: { name: "Ann", email: 7 } }, { status: 400, errors: [[3, "From.email"]] }],
  ["From email malformed", { From: addr("not-an-address") }, { status: 400, errors: [[23, "From.email"]] }],
  ["From name not a string", { From: addr("ann@example.com", 42) }, { status: 400, errors: [[2, "From.name"]] }],
  ["From name with CRLF", { From: addr("ann@example.com", "Ann\r\nBcc: x@y.z") }, { status: 400, errors: [[2, "From.name"]] }],
  ["From name with a control character", { From: addr("ann@example.com", "A\u0007nn") }, { status: 400, errors: [[2, "From.name"]] }],
  ["From name and email both bad", { From: addr("bad", "A\nB") }, { status: 400, errors: [[2, "From.name"], [23, "From.email"]] }],
  ["From without name (liberal)", { From: addr("ann@example.com") }, "ok"],
  ["From name null (liberal)", { From: addr("ann@example.com", null) }, "ok"],
  ["From name empty (liberal)", { From: addr("ann@example.com", "") }, "ok"],
  ["From plain string (liberal)", { From: "ann@example.com" }, "ok"],
  ["From 'Name <email>' string (liberal)", { From: "Ann Smith <ann@example.com>" }, "ok"],
  ["From string malformed", { From: "Ann <nope>" }, { status: 400, errors: [[23, "From.email"]] }],
  ["From capitalised keys (liberal)", { From: { Name: "Ann", Email: "ann@example.com" } }, "ok"],
  ["From string of 998 characters (longest accepted)", { From: `${" ".repeat(998 - "Ann <ann@example.com>".length)}Ann <ann@example.com>` }, "ok"],
  ["From string over 998 characters", { From: `${" ".repeat(999 - "Ann <ann@example.com>".length)}Ann <ann@example.com>` }, { status: 400, errors: [[23, "From.email"]] }],
  ["From string of 200,000 spaces", { From: `a${" ".repeat(200_000)}b` }, { status: 400, errors: [[23, "From.email"]] }],
  ["From string with two addresses", { From: "ann@example.com, bob@example.com" }, { status: 400, errors: [[23, "From.email"]] }],
  ["From string a group", { From: "g: ann@example.com;" }, { status: 400, errors: [[23, "From.email"]] }],
  ["From name over 998 characters", { From: addr("ann@example.com", "A".repeat(999)) }, { status: 400, errors: [[2, "From.name"]] }],
  ["To string over 998 characters", { To: [`<bob@example.net>${" ".repeat(999)}`] }, { status: 400, errors: [[19, "To[0].email"]] }],
  ["CC string over 998 characters", { CC: ["<".repeat(999)] }, { status: 400, errors: [[22, "CC[0].email"]] }],
  ["BCC string over 998 characters", { BCC: ['"'.repeat(999)] }, { status: 400, errors: [[26, "BCC[0].email"]] }],
  ["ReplyTo string over 998 characters", { ReplyTo: ["a <".repeat(400)] }, { status: 400, errors: [[30, "ReplyTo[0].email"]] }],
  ["ReplyTo name over 998 characters", { ReplyTo: [addr("r@example.net", "n".repeat(999))] }, { status: 400, errors: [[4, "ReplyTo[0].name"]] }],
  // Step 3: To.
  ["To missing", { To: undefined }, { status: 400, errors: [[20, "To"]] }],
  ["To not an array", { To: addr("bob@example.net") }, { status: 400, errors: [[20, "To"]] }],
  ["To a plain string (not an array)", { To: "bob@example.net" }, { status: 400, errors: [[20, "To"]] }],
  ["To empty", { To: [] }, { status: 400, errors: [[20, "To"]] }],
  ["To 10 entries", { To: many(10) }, "ok"],
  ["To 11 entries", { To: many(11) }, { status: 400, errors: [[20, "To"]] }],
  ["To entry a number", { To: [addr("a@example.net"), 5] }, { status: 400, errors: [[18, "To[1]"]] }],
  ["To entry null", { To: [null] }, { status: 400, errors: [[18, "To[0]"]] }],
  ["To entry without email", { To: [{ name: "Bob" }] }, { status: 400, errors: [[7, "To[0].email"]] }],
  ["To entry bad name", { To: [addr("bob@example.net", ["x"])] }, { status: 400, errors: [[6, "To[0].name"]] }],
  ["To entry name with a lone surrogate", { To: [addr("bob@example.net", "Bob \ud800")] }, { status: 400, errors: [[6, "To[0].name"]] }],
  ["To entry email with a lone surrogate", { To: [addr("b\udc00b@example.net")] }, { status: 400, errors: [[19, "To[0].email"]] }],
  ["To entry malformed", { To: [addr("a@example.net"), addr("b@example.net"), addr("bob@@example.net")] }, { status: 400, errors: [[19, "To[2].email"]] }],
  ["To entries: all errors collected", { To: [5, { name: "x" }, addr("y")] }, { status: 400, errors: [[18, "To[0]"], [7, "To[1].email"], [19, "To[2].email"]] }],
  ["To plain strings (liberal)", { To: ["bob@example.net", "Bob <bob@example.net>", '"Smith, Bob" <b@example.net>'] }, "ok"],
  ["To capitalised keys and no name (liberal)", { To: [{ Email: "bob@example.net" }, { Name: null, Email: "c@example.net" }] }, "ok"],
  // Step 4: CC.
  ["CC null is absent", { CC: null }, "ok"],
  ["CC not an array", { CC: "c@example.net" }, { status: 422, errors: [[422, "CC"]] }],
  ["CC 11 entries", { CC: many(11) }, { status: 400, errors: [[20, "CC"]] }],
  ["CC entry no address", { CC: [true] }, { status: 400, errors: [[21, "CC[0]"]] }],
  ["CC entry no email", { CC: [{ name: "C" }] }, { status: 400, errors: [[21, "CC[0].email"]] }],
  ["CC entry bad name", { CC: [addr("c@example.net", 1)] }, { status: 400, errors: [[21, "CC[0].name"]] }],
  ["CC entry malformed", { CC: [addr("c@example")] }, { status: 400, errors: [[22, "CC[0].email"]] }],
  // Step 5: BCC.
  ["BCC not an array", { BCC: addr("d@example.net") }, { status: 400, errors: [[24, "BCC"]] }],
  ["BCC 5 entries", { BCC: many(5) }, "ok"],
  ["BCC 6 entries", { BCC: many(6) }, { status: 400, errors: [[27, "BCC"]] }],
  ["BCC entry no address", { BCC: [[]] }, { status: 400, errors: [[25, "BCC[0]"]] }],
  ["BCC entry no email", { BCC: [{}] }, { status: 400, errors: [[25, "BCC[0].email"]] }],
  ["BCC entry bad name", { BCC: [addr("d@example.net", "\u0000")] }, { status: 400, errors: [[25, "BCC[0].name"]] }],
  ["BCC entry malformed", { BCC: ["d at example.net"] }, { status: 400, errors: [[26, "BCC[0].email"]] }],
  // Step 6: ReplyTo.
  ["ReplyTo not an array", { ReplyTo: "r@example.net" }, { status: 400, errors: [[28, "ReplyTo"]] }],
  ["ReplyTo 11 entries", { ReplyTo: many(11) }, { status: 400, errors: [[31, "ReplyTo"]] }],
  ["ReplyTo entry no address", { ReplyTo: [3] }, { status: 400, errors: [[29, "ReplyTo[0]"]] }],
  ["ReplyTo entry no email", { ReplyTo: [{ name: "R" }] }, { status: 400, errors: [[5, "ReplyTo[0].email"]] }],
  ["ReplyTo entry bad name", { ReplyTo: [addr("r@example.net", {})] }, { status: 400, errors: [[4, "ReplyTo[0].name"]] }],
  ["ReplyTo entry malformed", { ReplyTo: [addr("r@-example.net")] }, { status: 400, errors: [[30, "ReplyTo[0].email"]] }],
  // Step 7: Subject.
  ["Subject missing", { Subject: undefined }, { status: 400, errors: [[8, "Subject"]] }],
  ["Subject blank", { Subject: "   " }, { status: 400, errors: [[8, "Subject"]] }],
  ["Subject not a string", { Subject: 12 }, { status: 422, errors: [[422, "Subject"]] }],
  ["Subject 998 characters", { Subject: "é".repeat(998) }, "ok"],
  ["Subject 999 characters", { Subject: "x".repeat(999) }, { status: 422, errors: [[422, "Subject"]] }],
  // Text the database cannot store (a NUL, an unpaired surrogate) is malformed input, never a 500.
  ["Subject with a NUL", { Subject: "a\u0000b" }, { status: 422, errors: [[422, "Subject"]] }],
  ["Subject with a lone surrogate", { Subject: "a\ud800b" }, { status: 422, errors: [[422, "Subject"]] }],
  ["Subject with an emoji (a surrogate pair)", { Subject: "Hi 💌" }, "ok"],
  // Step 8: ContentType.
  ["ContentType missing", { ContentType: undefined }, { status: 400, errors: [[9, "ContentType"]] }],
  ["ContentType unknown", { ContentType: "markdown" }, { status: 422, errors: [[422, "ContentType"]] }],
  ["ContentType a number", { ContentType: 1 }, { status: 422, errors: [[422, "ContentType"]] }],
  ["ContentType html (liberal)", { ContentType: "html" }, "ok"],
  ["ContentType HtMl (liberal)", { ContentType: "HtMl" }, "ok"],
  ["ContentType plain (liberal)", { ContentType: "plain", HTMLContent: undefined, PlainContent: "hi" }, "ok"],
  ["ContentType text/html (liberal)", { ContentType: "text/html" }, "ok"],
  ["ContentType empty string", { ContentType: "" }, { status: 400, errors: [[9, "ContentType"]] }],
  ["ContentType Text (liberal)", { ContentType: "Text", HTMLContent: undefined, PlainContent: "hi" }, "ok"],
  // Step 9: bodies.
  ["no body, HTML", { HTMLContent: undefined }, { status: 400, errors: [[10, "HTMLContent"]] }],
  ["no body, Text", { ContentType: "text", HTMLContent: "" }, { status: 400, errors: [[11, "PlainContent"]] }],
  ["no body, no ContentType", { ContentType: undefined, HTMLContent: undefined }, { status: 400, errors: [[9, "ContentType"], [10, "HTMLContent"]] }],
  ["HTMLContent not a string", { HTMLContent: { a: 1 } }, { status: 422, errors: [[422, "HTMLContent"]] }],
  ["HTMLContent with a NUL", { HTMLContent: "<p>\u0000</p>" }, { status: 422, errors: [[422, "HTMLContent"]] }],
  ["PlainContent with a lone surrogate", { PlainContent: "a\udc00" }, { status: 422, errors: [[422, "PlainContent"]] }],
  ["Text declared, HTML given", { ContentType: "Text" }, "ok"],
  ["both bodies", { PlainContent: "Hello" }, "ok"],
  // Step 10: Tags.
  ["Tags ok", { Tags: ["a", "b"] }, "ok"],
  ["Tags not an array", { Tags: "a" }, { status: 422, errors: [[422, "Tags"]] }],
  ["Tags 11", { Tags: many(11, (i) => `t${i}`) }, { status: 422, errors: [[422, "Tags"]] }],
  ["Tag empty", { Tags: ["a", ""] }, { status: 422, errors: [[422, "Tags[1]"]] }],
  ["Tag too long", { Tags: ["x".repeat(129)] }, { status: 422, errors: [[422, "Tags[0]"]] }],
  ["Tag not a string", { Tags: [1] }, { status: 422, errors: [[422, "Tags[0]"]] }],
  ["Tag with a NUL", { Tags: ["ok", "t\u0000"] }, { status: 422, errors: [[422, "Tags[1]"]] }],
  // Step 11: Headers.
  ["Headers ok", { Headers: { "X-Campaign": "spring", "X-Mailroom-Track": "none" } }, "ok"],
  ["Headers an array", { Headers: [["X-A", "b"]] }, { status: 422, errors: [[422, "Headers"]] }],
  ["Headers 51 entries", { Headers: Object.fromEntries(many(51, (i) => [`X-H${i}`, "v"]) as [string, string][]) }, { status: 422, errors: [[422, "Headers"]] }],
  ["Header name with a space", { Headers: { "X Bad": "v" } }, { status: 422, errors: [[422, "Headers.X Bad"]] }],
  ["Header name with a colon", { Headers: { "X-A:": "v" } }, { status: 422, errors: [[422, "Headers.X-A:"]] }],
  ["Header value with LF", { Headers: { "X-A": "v\nBcc: evil@x.test" } }, { status: 422, errors: [[422, "Headers.X-A"]] }],
  ["Header value not a string", { Headers: { "X-A": 1 } }, { status: 422, errors: [[422, "Headers.X-A"]] }],
  ["Header value with a NUL", { Headers: { "X-A": "v\u0000" } }, { status: 422, errors: [[422, "Headers.X-A"]] }],
  ["Owned header From", { Headers: { from: "x@y.z" } }, { status: 422, errors: [[422, "Headers.from"]] }],
  ["Owned header Sender", { Headers: { Sender: "x@other.test" } }, { status: 422, errors: [[422, "Headers.Sender"]] }],
  ["Owned header Resent-From", { Headers: { "Resent-From": "x@other.test" } }, { status: 422, errors: [[422, "Headers.Resent-From"]] }],
  ["Owned header Resent-Sender", { Headers: { "resent-sender": "x@other.test" } }, { status: 422, errors: [[422, "Headers.resent-sender"]] }],
  ["Owned header Resent-To", { Headers: { "RESENT-TO": "x@other.test" } }, { status: 422, errors: [[422, "Headers.RESENT-TO"]] }],
  ["Header named like Sender but not Sender", { Headers: { "X-Sender": "x@other.test", "Senders": "a", "Resent": "b" } }, "ok"],
  ["Owned header Content-Type", { Headers: { "Content-Type": "text/plain" } }, { status: 422, errors: [[422, "Headers.Content-Type"]] }],
  ["Owned header List-Unsubscribe", { Headers: { "List-Unsubscribe": "<x>" } }, { status: 422, errors: [[422, "Headers.List-Unsubscribe"]] }],
  ["Owned header DKIM-Signature", { Headers: { "DKIM-Signature": "x" } }, { status: 422, errors: [[422, "Headers.DKIM-Signature"]] }],
  ["Tracking override unknown", { Headers: { "X-Mailroom-Track": "sometimes" } }, { status: 422, errors: [[422, "Headers.X-Mailroom-Track"]] }],
  // Step 12: Attachments.
  ["Attachment ok", { Attachments: [file()] }, "ok"],
  ["Attachments not an array", { Attachments: file() }, { status: 422, errors: [[422, "Attachments"]] }],
  ["Attachment not an object", { Attachments: ["x"] }, { status: 422, errors: [[422, "Attachments[0]"]] }],
  ["Attachment content not base64", { Attachments: [file({ Content: "hello world" })] }, { status: 422, errors: [[422, "Attachments[0].Content"]] }],
  ["Attachment content with line breaks", { Attachments: [file({ Content: "aGVs\nbG8=" })] }, { status: 422, errors: [[422, "Attachments[0].Content"]] }],
  ["Attachment content missing", { Attachments: [{ Filename: "a.txt" }] }, { status: 422, errors: [[422, "Attachments[0].Content"]] }],
  ["Attachment filename missing", { Attachments: [file({ Filename: undefined })] }, { status: 422, errors: [[422, "Attachments[0].Filename"]] }],
  ["Attachment filename only a path", { Attachments: [file({ Filename: "dir/sub/" })] }, { status: 422, errors: [[422, "Attachments[0].Filename"]] }],
  ["Attachment filename with a lone surrogate", { Attachments: [file({ Filename: "a\ud800.txt" })] }, { status: 422, errors: [[422, "Attachments[0].Filename"]] }],
  ["Attachment bad type", { Attachments: [file({ Type: "not a type" })] }, { status: 422, errors: [[422, "Attachments[0].Type"]] }],
  ["Attachment bad disposition", { Attachments: [file({ Disposition: "embedded" })] }, { status: 422, errors: [[422, "Attachments[0].Disposition"]] }],
  ["Attachment INLINE with ContentId int (liberal)", { Attachments: [file({ Disposition: "INLINE", ContentId: 7 })] }, "ok"],
  ["Attachment ContentID string (liberal)", { Attachments: [file({ Disposition: "inline", ContentID: "logo" })] }, "ok"],
  ["Attachment ContentId an object", { Attachments: [file({ ContentId: {} })] }, { status: 422, errors: [[422, "Attachments[0].ContentId"]] }],
  // ContentId as the Python SDK sends it (hash(path), signed 64-bit): lib/http/body.ts keeps the digits as JsonNumberText.
  ["Attachment ContentId negative int", { Attachments: [file({ ContentId: -7 })] }, "ok"],
  ["Attachment ContentId 0", { Attachments: [file({ ContentId: 0 })] }, "ok"],
  ["Attachment ContentId huge negative (exact text)", { Attachments: [file({ ContentId: new JsonNumberText("-4200931286474238466") })] }, "ok"],
  ["Attachment ContentID 40 digits (exact text)", { Attachments: [file({ ContentID: new JsonNumberText("1234567890123456789012345678901234567890") })] }, "ok"],
  ["Attachment ContentId numeric string", { Attachments: [file({ ContentId: "-4200931286474238466" })] }, "ok"],
  ["Attachment ContentId a fraction", { Attachments: [file({ ContentId: 1.5 })] }, { status: 422, errors: [[422, "Attachments[0].ContentId"]] }],
  ["Attachment ContentId unsafe number (digits lost)", { Attachments: [file({ ContentId: Number("-4200931286474238466") })] }, { status: 422, errors: [[422, "Attachments[0].ContentId"]] }],
  ["Attachment ContentId huge fraction text", { Attachments: [file({ ContentId: new JsonNumberText("12345678901234567890.5") })] }, { status: 422, errors: [[422, "Attachments[0].ContentId"]] }],
  ["Attachment ContentID huge exponent text", { Attachments: [file({ ContentID: new JsonNumberText("1e30") })] }, { status: 422, errors: [[422, "Attachments[0].ContentID"]] }],
  ["Attachment ContentId true", { Attachments: [file({ ContentId: true })] }, { status: 422, errors: [[422, "Attachments[0].ContentId"]] }],
  ["Attachment several errors", { Attachments: [file(), file({ Content: "!", Filename: "" })] }, { status: 422, errors: [[422, "Attachments[1].Content"], [422, "Attachments[1].Filename"]] }],
  // Bounds on what becomes a header line (hostile input, ADR 0103): names, values, file names, types, Content-IDs.
  ["Header name of 998 characters", { Headers: { [`X-${"a".repeat(996)}`]: "v" } }, "ok"],
  ["Header name over 998 characters", { Headers: { [`X-${"a".repeat(997)}`]: "v" } }, { status: 422, errors: [[422, `Headers.X-${"a".repeat(62)}…`]] }],
  ["Header value of 998 characters", { Headers: { "X-A": "v".repeat(998) } }, "ok"],
  ["Header value over 998 characters", { Headers: { "X-A": "v".repeat(999) } }, { status: 422, errors: [[422, "Headers.X-A"]] }],
  ["Attachment filename of 255 characters", { Attachments: [file({ Filename: `${"f".repeat(251)}.txt` })] }, "ok"],
  ["Attachment filename over 255 characters", { Attachments: [file({ Filename: `${"f".repeat(252)}.txt` })] }, { status: 422, errors: [[422, "Attachments[0].Filename"]] }],
  ["Attachment type over 998 characters", { Attachments: [file({ Type: `text/plain;a=${"b".repeat(990)}` })] }, { status: 422, errors: [[422, "Attachments[0].Type"]] }],
  ["Attachment ContentId over 998 characters", { Attachments: [file({ ContentId: "c".repeat(999) })] }, { status: 422, errors: [[422, "Attachments[0].ContentId"]] }],
  // Step 13: size.
  ["bodies + attachments over 10 MiB", { Attachments: [file({ Content: Buffer.alloc(MAX_MESSAGE_BYTES).toString("base64") })] }, { status: 422, errors: [[422, undefined]] }],
  ["exactly 10 MiB", { HTMLContent: "x".repeat(1024), Attachments: [file({ Content: Buffer.alloc(MAX_MESSAGE_BYTES - 1024).toString("base64") })] }, "ok"],
  // Errors of several steps: all reported, in order; the status is the first's.
  [
    "errors of several steps",
    { From: addr("bad"), To: [], Subject: 5, ContentType: undefined, HTMLContent: undefined, Tags: "x" },
    { status: 400, errors: [[23, "From.email"], [20, "To"], [422, "Subject"], [9, "ContentType"], [10, "HTMLContent"], [422, "Tags"]] },
  ],
  ["first error decides the status (422 before 400)", { CC: {}, BCC: "x" }, { status: 422, errors: [[422, "CC"], [24, "BCC"]] }],
];

function apply(patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

describe("validateEmailRequest (docs/contract.md §5.1–§5.13)", () => {
  it.each(rows)("%s", (_name, patch, expected) => {
    const result = validateEmailRequest(apply(patch));
    if (expected === "ok") {
      expect(result.ok ? [] : result.errors).toEqual([]);
      return;
    }
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.Code, e.Field])).toEqual(expected.errors);
    expect(httpStatusOf(result.errors[0]!.Code as ErrorCode)).toBe(expected.status);
    for (const e of result.errors) expect(typeof e.Message).toBe("string");
  });
});

describe("normalisation", () => {
  it("turns the liberal variants into one shape", () => {
    const r = validateEmailRequest({
      From: "Ann Smith <ann@example.com>",
      To: [{ Email: "bob@example.net" }, { name: null, email: " c@example.net " }, "Dee <d@example.net>"],
      CC: [{ name: "", email: "e@example.net" }],
      Subject: "Line\r\nbreak",
      ContentType: "text",
      HTMLContent: "<b>x</b>",
      PlainContent: "x",
      Tags: ["t1"],
      Headers: { "X-Campaign": "c", "x-mailroom-track": "OPENS" },
      Attachments: [{ Content: b64("hi"), Filename: "../../etc/pass\u0007wd.pdf", Disposition: "Inline", ContentID: "<logo>" }],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.content).toEqual({
      from: { name: "Ann Smith", email: "ann@example.com" },
      to: [
        { name: "", email: "bob@example.net" },
        { name: "", email: "c@example.net" },
        { name: "Dee", email: "d@example.net" },
      ],
      cc: [{ name: "", email: "e@example.net" }],
      bcc: [],
      replyTo: [],
      subject: "Line break",
      contentType: "HTML",
      html: "<b>x</b>",
      text: "x",
      attachments: [{ content: b64("hi"), filename: "passwd.pdf", type: "application/pdf", disposition: "inline", contentId: "logo" }],
      headers: [["X-Campaign", "c"]],
      tags: ["t1"],
      tracking: "opens",
    });
    expect(r.bytes).toBe("<b>x</b>".length + 1 + 2);
  });

  it("keeps an integer ContentId exactly as its decimal text", () => {
    const cid = (v: unknown) => {
      const r = validateEmailRequest({ ...base, Attachments: [file({ ContentId: v })] });
      return r.ok ? r.content.attachments[0]!.contentId : "rejected";
    };
    expect(cid(new JsonNumberText("-4200931286474238466"))).toBe("-4200931286474238466");
    expect(cid(new JsonNumberText("18446744073709551616"))).toBe("18446744073709551616");
    expect(cid(-42)).toBe("-42");
    expect(cid(1e3)).toBe("1000"); // JSON.parse gives 1000 for 1e3 and 1000.0 alike: an integer, its decimal text
    expect(cid(" <logo> ")).toBe("logo");
  });

  it("reports the effective type Text without an HTML body", () => {
    const r = validateEmailRequest({ ...base, ContentType: "HTML", HTMLContent: undefined, PlainContent: "p" });
    expect(r.ok && r.content.contentType).toBe("Text");
  });

  it("caps the number of reported errors", () => {
    const r = validateEmailRequest({ ...base, Attachments: Array.from({ length: 5000 }, () => 1) });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.length).toBe(100);
  });
});
