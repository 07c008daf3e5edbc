import { describe, expect, it } from "vitest";
import { TRACKING_HEADER } from "../../contract/email";
import { webhookDisabledEmail } from "./webhook-disabled-email";

describe("webhookDisabledEmail", () => {
  const base = {
    from: "no-reply@example.com",
    to: "ops@example.org",
    accountName: "Acme",
    webhookId: 7,
    url: "https://hooks.example.org/mail",
    reason: "The endpoint answered 410 Gone.",
    dashboardLink: "https://mailroom.example/a/x/webhooks",
  };

  it("names the webhook, its URL, why, and where to re-enable it; links untracked", () => {
    const m = webhookDisabledEmail(base);
    expect(m.Subject).toBe("Webhook 7 of Acme was disabled");
    expect(m.PlainContent).toContain("https://hooks.example.org/mail");
    expect(m.PlainContent).toContain("410 Gone");
    expect(m.PlainContent).toContain(base.dashboardLink);
    expect(m.Headers).toEqual({ [TRACKING_HEADER]: "none" });
    expect(m.To).toEqual([{ name: "", email: "ops@example.org" }]);
  });

  it("escapes names and URLs in the HTML part and keeps the subject on one line", () => {
    const m = webhookDisabledEmail({ ...base, accountName: "A<b>\r\nBcc: x@y", url: 'https://h.example/"><script>' });
    expect(m.HTMLContent).not.toContain("<script>");
    expect(m.HTMLContent).toContain("A&lt;b&gt;");
    expect(m.Subject).not.toMatch(/[\r\n]/);
  });
});
