import { describe, expect, it } from "vitest";
import { nodemailerConfig, postfixRelayhost, wpMailSmtp } from "./smtp-snippets";

describe("SMTP client snippets", () => {
  const e = { host: "mail.example.com", port: 587, tlsPort: 465, selfSigned: true };
  it("use the STARTTLS port when it is on", () => {
    expect(wpMailSmtp(e)).toContain("define( 'WPMS_SMTP_PORT', 587 );\ndefine( 'WPMS_SSL', 'tls' );");
    expect(postfixRelayhost(e)).toContain("relayhost = [mail.example.com]:587");
    expect(postfixRelayhost(e)).not.toContain("wrappermode");
    expect(nodemailerConfig(e)).toContain("secure: false");
    expect(nodemailerConfig(e)).toContain("rejectUnauthorized: false");
  });
  it("fall back to implicit TLS, and say nothing when submission is off", () => {
    const tlsOnly = { host: "h.example", tlsPort: 2465, selfSigned: false };
    expect(wpMailSmtp(tlsOnly)).toContain("'WPMS_SSL', 'ssl'");
    expect(postfixRelayhost(tlsOnly)).toContain("smtp_tls_wrappermode = yes\nsmtp_tls_security_level = verify");
    expect(nodemailerConfig(tlsOnly)).not.toContain("rejectUnauthorized");
    expect(nodemailerConfig({ host: "h", selfSigned: false })).toBe("");
  });
});
