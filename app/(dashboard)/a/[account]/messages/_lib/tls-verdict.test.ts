import { describe, expect, it } from "vitest";
import { describeTls } from "./tls-verdict";

describe("a delivered copy's TLS line", () => {
  it("names the policy, the negotiated version and cipher, and the check", () => {
    expect(describeTls({ Policy: "mta-sts", Mode: "enforce", Version: "TLSv1.3", Cipher: "TLS_AES_256_GCM_SHA384", Verified: true })).toEqual({
      text: "MTA-STS (enforce) · TLSv1.3 TLS_AES_256_GCM_SHA384 · certificate verified",
      warning: false,
    });
    expect(describeTls({ Policy: "dane", Version: "TLSv1.2", Cipher: "ECDHE-RSA-AES128-GCM-SHA256", Verified: true }).text).toBe("DANE · TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256 · certificate verified");
  });

  it("warns when a testing policy delivered past a failed check", () => {
    expect(describeTls({ Policy: "mta-sts", Mode: "testing", Version: "TLSv1.3", Cipher: "X", Verified: false, Failure: "the certificate does not name mx.example" })).toEqual({
      text: "MTA-STS (testing) · TLSv1.3 X · check failed: the certificate does not name mx.example",
      warning: true,
    });
    expect(describeTls({ Policy: "mta-sts", Mode: "testing", Verified: false, Failure: "mx offered no STARTTLS" }).text).toContain("not encrypted");
  });

  it("says plainly when a copy went in clear, and when opportunistic TLS checked nothing", () => {
    expect(describeTls({ Policy: "none", Verified: false }).text).toMatch(/^No TLS: sent in clear/);
    expect(describeTls({ Policy: "opportunistic", Version: "TLSv1.3", Cipher: "X", Verified: false }).text).toBe("Opportunistic TLS · TLSv1.3 X · certificate not checked");
  });
});
