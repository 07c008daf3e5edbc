import { describe, expect, it } from "vitest";
import { signDownloadToken, verifyDownloadToken } from "./download-token";

describe("inbound attachment download tokens", () => {
  const id = "0b8a3c1e-1234-4abc-8def-0123456789ab";
  const later = new Date(Date.now() + 60_000);
  it("verifies its own token until it expires", () => {
    const token = signDownloadToken("s3cret", id, 2, later);
    expect(verifyDownloadToken("s3cret", token)).toEqual({ messageId: id, index: 2 });
    expect(verifyDownloadToken("s3cret", token, new Date(later.getTime() + 1000))).toBeUndefined();
  });
  it("refuses another secret, an edited index or expiry, and garbage", () => {
    const token = signDownloadToken("s3cret", id, 2, later);
    expect(verifyDownloadToken("other", token)).toBeUndefined();
    const [m, , e, s] = token.split(".");
    expect(verifyDownloadToken("s3cret", [m, 3, e, s].join("."))).toBeUndefined();
    expect(verifyDownloadToken("s3cret", [m, 2, Number(e) + 100, s].join("."))).toBeUndefined();
    expect(verifyDownloadToken("s3cret", "a.b.c")).toBeUndefined();
    expect(verifyDownloadToken("s3cret", "x".repeat(500))).toBeUndefined();
  });
});
