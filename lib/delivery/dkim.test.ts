import fc from "fast-check";
import { createHash, generateKeyPairSync } from "node:crypto";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { describe, expect, it } from "vitest";
import { relaxedBody, relaxedBodyHash, relaxedHeader, signDkim, splitBodyHash } from "./dkim";

const { privateKey, publicKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const p = publicKey.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
const resolver = async (name: string, type: string) => {
  if (type === "TXT" && name === "s1._domainkey.example.com") return [[`v=DKIM1; k=rsa; p=${p}`]];
  throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
};
const key = { domainName: "example.com", keySelector: "s1", privateKey };

async function verify(raw: Buffer) {
  return (await dkimVerify(raw, { resolver })).results[0]!;
}

describe("DKIM (rsa-sha256, relaxed/relaxed), checked by mailauth", () => {
  it("canonicalizes like RFC 6376 §3.4", () => {
    expect(relaxedHeader("Subject", "  Hello \r\n\t World  ")).toBe("subject:Hello World");
    expect(relaxedBody("a  b \r\nc\t\r\n\r\n\r\n")).toBe("a b\r\nc\r\n");
    expect(relaxedBody("\r\n\r\n")).toBe("");
  });

  it("signs folded headers, odd whitespace and 8-bit bodies so that they verify", async () => {
    const raw = Buffer.from(
      [
        "From: Ann <ann@example.com>",
        "To: a@example.org,",
        "  b@example.org",
        "Subject:   spaced    out  ",
        "Date: Mon, 2 Mar 2026 10:00:00 +0000",
        "Message-ID: <x@example.com>",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=utf-8",
        "Content-Transfer-Encoding: 8bit",
        "",
        "Grüße  \t aus   Köln   ",
        "",
        "",
      ].join("\r\n"),
      "utf8",
    );
    const signed = await signDkim(raw, key);
    expect(signed.subarray(signed.length - raw.length).equals(raw)).toBe(true);
    const r = await verify(signed);
    expect(r.status.result).toBe("pass");
    expect(r.signingDomain).toBe("example.com");
  });

  it("fails verification when a signed header or the body changes", async () => {
    const raw = Buffer.from("From: a@example.com\r\nSubject: one\r\nTo: b@example.org\r\n\r\nbody\r\n");
    const signed = (await signDkim(raw, key)).toString();
    expect((await verify(Buffer.from(signed.replace("Subject: one", "Subject: two")))).status.result).toBe("fail");
    expect((await verify(Buffer.from(signed.replace("\r\n\r\nbody", "\r\n\r\nbodY")))).status.result).not.toBe("pass");
  });

  it("hashes the relaxed body in chunks exactly as relaxedBody, without holding the event loop", async () => {
    const sha = (t: string) => createHash("sha256").update(t, "latin1").digest("base64");
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom("a", " ", "\t", "\r\n", "\r", "\n", "x y", "\u00e9"), { maxLength: 60 }), async (parts) => {
        const body = parts.join("");
        expect(await relaxedBodyHash(body)).toBe(sha(relaxedBody(body)));
      }),
      { numRuns: 200 },
    );
    const big = `${"line  with \t spaces  \r\n\r\n".repeat(400_000)}\r\n\r\n`;
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    const hashed = await relaxedBodyHash(big);
    h.disable();
    expect(hashed).toBe(sha(relaxedBody(big)));
    // The signer hashes from the message buffer, a slice at a time: the same hash.
    expect(await relaxedBodyHash(Buffer.from(big, "latin1"))).toBe(hashed);
    const odd = `${"x \r".repeat(20_000)}\r\n${"\u00e9\t\r\n\r\n".repeat(30_000)}tail  `;
    expect(await relaxedBodyHash(Buffer.from(odd, "latin1"))).toBe(sha(relaxedBody(odd)));
    expect(h.max / 1e6).toBeLessThan(200);
  }, 60_000);

  it("splitBodyHash: the prefix and suffix canonicalised once give the hash of the whole body (property)", async () => {
    const line = fc.array(fc.constantFrom("a", "b", " ", "\t", "é", "--"), { maxLength: 6 }).map((c) => c.join(""));
    const lines = fc.array(line, { maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(lines, lines, lines, async (pre, mid, post) => {
        const prefix = Buffer.from(pre.map((l) => `${l}\r\n`).join(""), "latin1");
        const middle = Buffer.from(mid.map((l) => `${l}\r\n`).join(""), "latin1");
        // The suffix begins with a boundary line, as in a template.
        const suffix = Buffer.from(["--b", ...post].join("\r\n"), "latin1");
        const split = await splitBodyHash(prefix, suffix);
        expect(await split.hash(middle)).toBe(await relaxedBodyHash(Buffer.concat([prefix, middle, suffix])));
      }),
      { numRuns: 300 },
    );
  });
});
