import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildInboundPayload, payloadJsonBytes } from "./payload";
import { KEPT_INLINE_BYTES, keptPayloadJson, postedPayloadJson } from "./stored-payload";

const noDns = async (name: string) => {
  throw Object.assign(new Error(`no record for ${name}`), { code: "ENOTFOUND" });
};

function mime(attachments: Buffer[]): Buffer {
  const parts = attachments.map(
    (a, i) =>
      `--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="a${i}.bin"\r\nContent-Transfer-Encoding: base64\r\n\r\n${a.toString("base64").replace(/.{76}/g, "$&\r\n")}\r\n`,
  );
  const head = 'From: Ann <ann@sender.example>\r\nTo: support@in.example\r\nSubject: Files\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n';
  return Buffer.from(`${head}--b\r\nContent-Type: text/plain\r\n\r\nSee the files "here".\r\n${parts.join("")}--b--\r\n`);
}

const build = (raw: Buffer) =>
  buildInboundPayload({
    id: "6f1d2c1e-0000-4000-8000-000000000001",
    accountId: "a",
    raw,
    originalRecipient: "support@in.example",
    mailboxHash: "",
    envelope: { mailFrom: "ann@sender.example", remoteIp: "", helo: "" },
    inlineBytes: 10 * 1024 * 1024,
    downloadUrl: (i) => `https://mailroom.example/t/inbound/${i}`,
    findReplied: async () => undefined,
    resolver: noDns,
    mta: "mx.mailroom.example",
  });

describe("the kept JSON of an inbound post", () => {
  it("is the posted bytes themselves while the inline attachments are small", async () => {
    const raw = mime([randomBytes(1000), Buffer.alloc(0)]);
    const built = await build(raw);
    const posted = await payloadJsonBytes(built);
    const kept = await keptPayloadJson(built, posted);
    expect(kept).toBe(posted);
    expect((await postedPayloadJson(kept.toString("utf8"), raw)).equals(posted)).toBe(true);
  });

  it("leaves large inline attachments out, and a retry posts the first attempt's bytes again from the raw message", async () => {
    const big = randomBytes(KEPT_INLINE_BYTES + 1);
    const raw = mime([randomBytes(500), big]);
    const built = await build(raw);
    const posted = await payloadJsonBytes(built);
    const kept = await keptPayloadJson(built, posted);
    expect(kept.length).toBeLessThan(2000);
    const keptJson = JSON.parse(kept.toString("utf8")) as { Attachments: { Content: string; ContentLength: number }[] };
    expect(keptJson.Attachments.map((a) => [a.Content, a.ContentLength])).toEqual([
      ["", 500],
      ["", big.length],
    ]);
    const again = await postedPayloadJson(kept.toString("utf8"), raw);
    expect(again.equals(posted)).toBe(true);
    const postedJson = JSON.parse(again.toString("utf8")) as { Attachments: { Content: string }[] };
    expect(Buffer.from(postedJson.Attachments[1]!.Content, "base64").equals(big)).toBe(true);
  });

  it("fails (never posts a hollow JSON) when the raw message no longer holds the attachment", async () => {
    const raw = mime([randomBytes(KEPT_INLINE_BYTES + 1)]);
    const built = await build(raw);
    const kept = await keptPayloadJson(built, await payloadJsonBytes(built));
    await expect(postedPayloadJson(kept.toString("utf8"), mime([]))).rejects.toThrow(/not in the raw message/);
  });
});
