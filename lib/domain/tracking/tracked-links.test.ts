import { describe, expect, it } from "vitest";
import { trackingBaseUrl } from "./tracked-links";

describe("trackingBaseUrl", () => {
  it("is the public URL without a tracking domain", () => {
    expect(trackingBaseUrl("https://mailroom.example.net/")).toBe("https://mailroom.example.net");
    expect(trackingBaseUrl("https://mailroom.example.net", null)).toBe("https://mailroom.example.net");
  });
  it("puts the tracking domain in the host, keeping the scheme, port and path", () => {
    expect(trackingBaseUrl("https://mailroom.example.net", "track.mail.example.com")).toBe("https://track.mail.example.com");
    expect(trackingBaseUrl("http://127.0.0.1:8080", "track.mail.example.com")).toBe("http://track.mail.example.com:8080");
    expect(trackingBaseUrl("https://example.net/mailroom/", "track.mail.example.com")).toBe("https://track.mail.example.com/mailroom");
  });
});
