import { describe, expect, it } from "vitest";
import { emailRequestSchema } from "../../contract/email";
import { invitationEmail } from "./invitation-email";

describe("invitation email", () => {
  const base = {
    from: "no-reply@example.com",
    to: "carol@b.test",
    role: "support",
    inviter: "Alice (alice@a.test)",
    link: "https://mail.example.com/invite/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
    expiresAt: new Date("2026-12-02T10:30:00Z"),
  };

  it("is a valid POST /email request: the link in both parts, untracked, with the expiry", () => {
    const req = invitationEmail({ ...base, accountName: "Acme" });
    expect(emailRequestSchema.safeParse(req).success).toBe(true);
    expect(req.Subject).toBe("Invitation to Acme on Mailroom");
    expect(req.PlainContent).toContain(base.link);
    expect(req.HTMLContent).toContain(`href="${base.link}"`);
    expect(req.PlainContent).toContain("2026-12-02 10:30 UTC");
    expect(req.Headers).toEqual({ "X-Mailroom-Track": "none" });
  });

  it("escapes names in the HTML part and keeps them on one line", () => {
    const req = invitationEmail({ ...base, accountName: '<img src=x onerror=alert(1)>\r\nBcc: x@evil.test "&', inviter: "<b>Eve</b>" });
    expect(req.HTMLContent).not.toMatch(/<img|<b>/);
    expect(req.HTMLContent).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(req.Subject).not.toMatch(/[\r\n]/);
    expect(req.HTMLContent).toContain("&quot;&amp;");
  });
});
