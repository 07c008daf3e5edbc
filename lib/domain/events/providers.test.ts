import { describe, expect, it } from "vitest";
import { OTHER_PROVIDER, providerOf } from "./providers";

describe("providerOf", () => {
  it("names the large providers by their domains, in any case", () => {
    expect(providerOf("gmail.com")).toBe("Gmail");
    expect(providerOf("GoogleMail.com")).toBe("Gmail");
    expect(providerOf("outlook.com")).toBe("Outlook");
    expect(providerOf("hotmail.com")).toBe("Outlook");
    expect(providerOf("live.com")).toBe("Outlook");
    expect(providerOf("hotmail.co.uk")).toBe("Outlook");
    expect(providerOf("yahoo.com")).toBe("Yahoo");
    expect(providerOf("yahoo.co.jp")).toBe("Yahoo");
    expect(providerOf("ymail.com")).toBe("Yahoo");
  });

  it("puts every other domain, look-alikes included, under Other", () => {
    expect(providerOf("example.com")).toBe(OTHER_PROVIDER);
    expect(providerOf("notgmail.com")).toBe(OTHER_PROVIDER);
    expect(providerOf("gmail.com.evil.example")).toBe(OTHER_PROVIDER);
    expect(providerOf("yahoo")).toBe(OTHER_PROVIDER);
    expect(providerOf("yahoo.com.evil.example")).toBe(OTHER_PROVIDER);
    expect(providerOf("")).toBe(OTHER_PROVIDER);
  });
});
