import { describe, expect, it } from "vitest";
import { destinationKeysOf, destinationOf, providerOf } from "./destination";

describe("destinationOf", () => {
  it("is the relay in relay mode", () => {
    expect(destinationOf("example.com", "relay")).toEqual({ key: "relay" });
    expect(destinationKeysOf("Example.com", { key: "relay" })).toEqual(["example.com", "relay"]);
  });

  it("names a provider when an MX host matches its pattern, whatever the domain", () => {
    expect(destinationOf("gmail.com", ["gmail-smtp-in.l.google.com", "alt1.gmail-smtp-in.l.google.com"])).toEqual({ key: "gmail", provider: "gmail" });
    expect(destinationOf("hosted-on-workspace.example", ["ASPMX.L.GOOGLE.COM."])).toEqual({ key: "gmail", provider: "gmail" });
    expect(destinationOf("contoso.example", ["contoso-example.mail.protection.outlook.com"])).toEqual({ key: "outlook", provider: "outlook" });
    expect(destinationOf("yahoo.com", ["mta5.am0.yahoodns.net"])).toMatchObject({ key: "yahoo" });
  });

  it("is the sorted MX host set otherwise, the domain itself without MX", () => {
    expect(destinationOf("a.example", ["mx2.a.example", "MX1.a.example", "mx2.a.example"])).toEqual({ key: "mx1.a.example,mx2.a.example" });
    expect(destinationOf("b.example", ["mx1.a.example", "mx2.a.example"]).key).toBe(destinationOf("a.example", ["mx2.a.example", "mx1.a.example"]).key);
    expect(destinationOf("a-only.example", [])).toEqual({ key: "a-only.example" });
  });

  it("matches a suffix on a label boundary only", () => {
    expect(providerOf("mx.notgoogle.com")).toBeUndefined();
    expect(providerOf("google.com")).toBe("gmail");
  });

  it("lists the keys a hold or rule may name, most specific first", () => {
    const d = destinationOf("shop.example", ["aspmx.l.google.com"]);
    expect(destinationKeysOf("shop.example", d)).toEqual(["shop.example", "gmail"]);
    expect(destinationKeysOf("a.example", destinationOf("a.example", ["mx.a.example"]))).toEqual(["a.example", "mx.a.example"]);
  });
});
