import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { zipOne } from "../../../test/support/dmarc-reports";
import { attachmentKindOf, unpackReport } from "./unpack";

const LIMITS = { maxCompressedBytes: 1024 * 1024, maxXmlBytes: 64 * 1024 };

describe("unpackReport", () => {
  it("knows a report attachment by its type or its name", () => {
    expect(attachmentKindOf("application/gzip", "")).toBe("gzip");
    expect(attachmentKindOf("application/octet-stream", "google.com!example.com!1!2.zip")).toBe("zip");
    expect(attachmentKindOf("text/xml", "")).toBe("xml");
    expect(attachmentKindOf("text/plain", "readme.txt")).toBeUndefined();
  });

  it("unpacks gzip, zip and plain XML", async () => {
    const xml = Buffer.from("<feedback/>");
    expect((await unpackReport("gzip", gzipSync(xml), LIMITS)).toString()).toBe("<feedback/>");
    expect((await unpackReport("zip", zipOne("report.xml", xml), LIMITS)).toString()).toBe("<feedback/>");
    expect((await unpackReport("xml", xml, LIMITS)).toString()).toBe("<feedback/>");
  });

  it("stops a gzip or zip bomb at the decompressed cap", async () => {
    const bomb = Buffer.alloc(10 * 1024 * 1024, 0x20);
    await expect(unpackReport("gzip", gzipSync(bomb), LIMITS)).rejects.toThrow(/expands past 65536 bytes/);
    // The zip's declared size is checked; an entry that lies about it is refused at the first byte past
    // what it declared (yauzl's size check), so before the cap whatever it really expands to.
    await expect(unpackReport("zip", zipOne("report.xml", bomb), LIMITS)).rejects.toThrow(/expands past/);
    const lying = zipOne("report.xml", bomb);
    const central = lying.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    lying.writeUInt32LE(10, central + 24);
    await expect(unpackReport("zip", lying, LIMITS)).rejects.toThrow(/broken zip: too many bytes/);
  });

  it("refuses an attachment over the compressed cap, a zip of two entries, a broken archive", async () => {
    await expect(unpackReport("gzip", Buffer.alloc(LIMITS.maxCompressedBytes + 1), LIMITS)).rejects.toThrow(/over 1048576 bytes/);
    const two = zipOne("a.xml", Buffer.from("<a/>"));
    two.writeUInt16LE(2, two.length - 22 + 10);
    await expect(unpackReport("zip", two, LIMITS)).rejects.toThrow(/2 entries/);
    await expect(unpackReport("zip", Buffer.from("PK not really"), LIMITS)).rejects.toThrow(/not a zip/);
    await expect(unpackReport("gzip", Buffer.from("not gzip"), LIMITS)).rejects.toThrow(/does not decompress/);
  });
});
