import { describe, expect, it } from "vitest";
import { mimeLimitViolation } from "./mime-limits";

function nested(depth: number): string {
  let body = "Content-Type: text/plain\r\n\r\nhi\r\n";
  for (let d = depth; d > 0; d--) body = `Content-Type: multipart/mixed; boundary="b${d}"\r\n\r\n--b${d}\r\n${body}--b${d}--\r\n`;
  return `From: a@example.org\r\nSubject: nest\r\nMIME-Version: 1.0\r\n${body}`;
}

function manyParts(n: number): string {
  const parts = Array.from({ length: n }, (_, i) => `--x\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`).join("");
  return `From: a@example.org\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="x"\r\n\r\n${parts}--x--\r\n`;
}

describe("inbound MIME limits", () => {
  it("passes an ordinary message", async () => {
    expect(await mimeLimitViolation(Buffer.from(manyParts(3)))).toBeUndefined();
    expect(await mimeLimitViolation(Buffer.from(nested(5)))).toBeUndefined();
  });
  it("refuses too many parts, too deep nesting and too many header fields", async () => {
    expect(await mimeLimitViolation(Buffer.from(manyParts(5000)))).toMatch(/MIME parts|child nodes/);
    expect(await mimeLimitViolation(Buffer.from(nested(50)))).toMatch(/nested/);
    const headers = Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`).join("\r\n");
    expect(await mimeLimitViolation(Buffer.from(`${headers}\r\n\r\nbody\r\n`))).toMatch(/header/);
  });
  it("refuses more than 50 DKIM-Signature fields in the message's header, not in a forwarded message", async () => {
    const sigs = (n: number) => Array.from({ length: n }, (_, i) => `DKIM-Signature: v=1; a=rsa-sha256; d=d${i}.example; s=s; l=${i}; bh=A; b=B`).join("\r\n");
    expect(await mimeLimitViolation(Buffer.from(`${sigs(50)}\r\nFrom: a@example.org\r\n\r\nbody\r\n`))).toBeUndefined();
    expect(await mimeLimitViolation(Buffer.from(`${sigs(51)}\r\nFrom: a@example.org\r\n\r\nbody\r\n`))).toBe("more than 50 DKIM-Signature fields");
    const forwarded = `From: a@example.org\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="x"\r\n\r\n--x\r\nContent-Type: message/rfc822\r\n\r\n${sigs(60)}\r\nFrom: b@example.net\r\n\r\nold\r\n--x--\r\n`;
    expect(await mimeLimitViolation(Buffer.from(forwarded))).toBeUndefined();
  });
});
