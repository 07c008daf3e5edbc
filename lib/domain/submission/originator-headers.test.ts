import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { checkOriginatorHeaders, originatorDomains, SINGLE_FIELDS } from "./originator-headers";

/** The header lines exactly as submit-mime.ts gets them: mailparser's. */
async function check(head: string) {
  const parsed = await simpleParser(Buffer.from(`${head.replace(/\n/g, "\r\n")}\r\n\r\nbody\r\n`));
  return checkOriginatorHeaders(parsed.headerLines);
}
const codeOf = (r: Awaited<ReturnType<typeof check>>) => (r.ok ? "ok" : `${r.reply.code} ${r.reply.text}`);

describe("checkOriginatorHeaders (the From/Sender/Resent-* and single fields of a submission)", () => {
  it("passes an ordinary message and returns every originator", async () => {
    const r = await check("From: Shop <shop@example.com>\nSender: bot@example.com\nResent-From: a@example.com, b@mail.example.com\nTo: ann@example.org\nSubject: x");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.from).toEqual({ field: "from", name: "Shop", address: "shop@example.com" });
    expect(r.originators.map((o) => `${o.field}:${o.address}`)).toEqual([
      "from:shop@example.com",
      "sender:bot@example.com",
      "resent-from:a@example.com",
      "resent-from:b@mail.example.com",
    ]);
    expect([...originatorDomains(r.originators)]).toEqual([
      ["example.com", "from"],
      ["mail.example.com", "resent-from"],
    ]);
  });

  it("refuses a second From, foreign first or last, folded or in another case, with 554 5.6.0 naming it", async () => {
    for (const head of [
      "From: ceo@other.example\nFrom: shop@example.com\nTo: a@example.org",
      "From: shop@example.com\nFrom: ceo@other.example\nTo: a@example.org",
      "FROM: ceo@other.example\nfrom :\n shop@example.com\nTo: a@example.org",
      "From: shop@example.com\nFrom: shop@example.com\nTo: a@example.org",
    ]) {
      expect(codeOf(await check(head)), head).toBe("554 5.6.0 The message has 2 From headers: RFC 5322 allows one");
    }
  });

  it("refuses every repeated single field of RFC 5322, and allows repeated trace and Resent fields", async () => {
    const values: Record<string, string> = { date: "Tue, 1 Jan 2030 00:00:00 +0000", "message-id": "<a@b.example>", references: "<a@b.example>", "in-reply-to": "<a@b.example>" };
    for (const field of SINGLE_FIELDS) {
      if (field === "from") continue;
      const line = `${field}: ${values[field] ?? "x@example.org"}`;
      const r = await check(`From: shop@example.com\n${line}\n${line}`);
      expect(codeOf(r), field).toMatch(/^554 5\.6\.0 The message has 2 [A-Za-z-]+ headers: RFC 5322 allows one$/);
      expect(codeOf(r).toLowerCase(), field).toContain(` ${field} headers`);
    }
    const ok = await check(
      "Received: from a\nReceived: from b\nResent-From: shop@example.com\nResent-Date: Tue, 1 Jan 2030 00:00:00 +0000\nResent-From: shop@example.com\nResent-Sender: a@example.com\nResent-Sender: b@example.com\nX-A: 1\nX-A: 2\nFrom: shop@example.com",
    );
    expect(ok.ok).toBe(true);
  });

  it("refuses a From that is not exactly one valid mailbox", async () => {
    for (const from of [
      "a@example.com, ceo@other.example",
      '"ceo@other.example", shop@example.com',
      "Team: shop@example.com;",
      "Shop",
      "<>",
      "not an address",
      "shop@example.com@other.example",
      `${"a".repeat(990)} <shop@example.com>`,
      "=?utf-8?B?PGNlb0BvdGhlci5leGFtcGxlPg==?=",
    ]) {
      expect(codeOf(await check(`From: ${from}\nTo: a@example.org`)), from).toBe(
        "550 5.7.1 The From header must hold exactly one address, on a verified sender domain of this account",
      );
    }
    expect(codeOf(await check("To: a@example.org\nSubject: no from"))).toMatch(/^550 5\.7\.1 The From header must hold exactly one address/);
  });

  it("refuses a malformed Sender, Resent-Sender or Resent-From, naming the header", async () => {
    expect(codeOf(await check("From: shop@example.com\nSender: a@example.com, b@example.com"))).toBe(
      "550 5.7.1 The Sender header must hold exactly one address, on a verified sender domain of this account",
    );
    expect(codeOf(await check("From: shop@example.com\nResent-Sender: g: a@example.com;"))).toBe(
      "550 5.7.1 The Resent-Sender header must hold exactly one address, on a verified sender domain of this account",
    );
    expect(codeOf(await check('From: shop@example.com\nResent-From: a@example.com, "Boss"'))).toBe(
      "550 5.7.1 The Resent-From header must hold addresses only, on a verified sender domain of this account",
    );
  });

  it("refuses a bare CR anywhere in the header block, where a reader could see a second From", async () => {
    for (const head of ["From: shop@example.com\r\nSubject: hi\rFrom: ceo@other.example", "From: shop@example.com\rFrom: ceo@other.example", "X-A: a\r\n\tb\r\rc\r\nFrom: shop@example.com"]) {
      const parsed = await simpleParser(Buffer.from(`${head}\r\n\r\nbody`));
      const r = checkOriginatorHeaders(parsed.headerLines);
      expect(r.ok ? "ok" : r.reply.text, JSON.stringify(head)).toBe("5.6.0 The message header has a CR without LF: lines must end with CRLF");
    }
    // Folded lines (CRLF + white space) are fine.
    expect((await check("From: Shop\n <shop@example.com>\nSubject: a\n\tb")).ok).toBe(true);
  });

  it("bounds the Resent fields", async () => {
    const lines = Array.from({ length: 21 }, () => "Resent-From: shop@example.com").join("\n");
    expect(codeOf(await check(`From: shop@example.com\n${lines}`))).toBe("554 5.6.0 The message has more than 20 Resent-From and Resent-Sender headers");
  });

  it("reads UTF-8 and encoded display names without taking them for addresses", async () => {
    const r = await check("From: =?utf-8?B?w4lsw6huZQ==?= <élène@exämple.com>\nSender: Zoë <zoe@example.com>");
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.originators.map((o) => o.address)).toEqual(["élène@exämple.com", "zoe@example.com"]);
  });
});
