import { describe, expect, it } from "vitest";
import { listedHeaders } from "./sandbox-mx";

describe("listedHeaders (what the sandbox list shows of a capture)", () => {
  it("reads the first Message-ID and Subject, unfolded and still encoded, whatever the case and line ending", () => {
    expect(listedHeaders(Buffer.from("message-id:  <a@b.example>\r\nSUBJECT: =?utf-8?Q?=C3=A9t=C3=A9?=\r\n  and more\r\nSubject: second\r\n\r\nSubject: body\r\n"))).toEqual({
      messageIdHeader: "<a@b.example>",
      subject: "=?utf-8?Q?=C3=A9t=C3=A9?= and more",
    });
    expect(listedHeaders(Buffer.from("X-A: 1\nSubject: lf only\n\nMessage-ID: <in-body@x>\n"))).toEqual({ messageIdHeader: "", subject: "lf only" });
  });

  it("reads only the bounded start: a header past 64 KiB is not seen", () => {
    const raw = Buffer.from(`X-Pad: ${"x".repeat(70 * 1024)}\r\nSubject: late\r\n\r\nbody`);
    expect(listedHeaders(raw).subject).toBe("");
    expect(listedHeaders(Buffer.alloc(0))).toEqual({ messageIdHeader: "", subject: "" });
  });
});
