import { describe, expect, it } from "vitest";
import { addDomainRequestSchema, isAsciiDomainName } from "./domains";

describe("the Domain of POST /domains", () => {
  it("takes an ASCII name of two labels or more, an IDN in its xn-- form", () => {
    expect(isAsciiDomainName("mail.example.com")).toBe(true);
    expect(isAsciiDomainName("xn--bcher-kva.example")).toBe(true);
    expect(addDomainRequestSchema.parse({ Domain: " Mail.Example.COM. " }).Domain).toBe("mail.example.com");
  });
  it("refuses empty labels, one label, Unicode, bad hyphens and long names", () => {
    for (const bad of ["example..com", "localhost", "bücher.example", "-a.example.com", "a-.example.com", "a_b.example.com", `${"a".repeat(64)}.com`, `${"a.".repeat(150)}com`, ""]) {
      expect(isAsciiDomainName(bad), bad).toBe(false);
    }
    expect(addDomainRequestSchema.safeParse({ Domain: "x".repeat(300) }).success).toBe(false);
    expect(addDomainRequestSchema.safeParse({}).success).toBe(false);
  });
});
