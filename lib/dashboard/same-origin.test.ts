import { describe, expect, it } from "vitest";
import { crossSiteRefusal, requestCrossSiteRefusal, type SameOriginInput } from "./same-origin";

const base: SameOriginInput = { origin: null, secFetchSite: null, host: "mail.example.com", allowedOrigins: ["https://mail.example.com"] };
const check = (over: Partial<SameOriginInput>) => crossSiteRefusal({ ...base, ...over });

describe("crossSiteRefusal", () => {
  it("lets same-origin requests, typed URLs and clients without browser headers through", () => {
    expect(check({})).toBeUndefined();
    expect(check({ secFetchSite: "same-origin" })).toBeUndefined();
    expect(check({ secFetchSite: " Same-Origin " })).toBeUndefined();
    expect(check({ secFetchSite: "none" })).toBeUndefined();
    expect(check({ origin: "https://mail.example.com", secFetchSite: "same-origin" })).toBeUndefined();
  });

  it("refuses cross-site and same-site (a sibling subdomain) by Sec-Fetch-Site, whatever the Origin says", () => {
    expect(check({ secFetchSite: "cross-site" })).toMatch(/cross-site/);
    expect(check({ secFetchSite: "same-site", origin: "https://evil.example.com" })).toMatch(/same-site/);
    expect(check({ secFetchSite: "cross-site", origin: "https://mail.example.com" })).toBeDefined();
    expect(check({ secFetchSite: "x".repeat(10_000) })!.length).toBeLessThan(200);
  });

  it("refuses an Origin that is not the public URL nor the Host", () => {
    expect(check({ origin: "https://evil.example" })).toBeDefined();
    expect(check({ origin: "https://evil.mail.example.com" })).toBeDefined();
    expect(check({ origin: "http://mail.example.com" }, )).toBeUndefined(); // same Host (TLS ends at a proxy)
    expect(check({ origin: "https://mail.example.com:8443" })).toBeDefined();
    expect(check({ origin: "null" })).toBeDefined();
    expect(check({ origin: "" })).toBeDefined();
    expect(check({ origin: "not a url" })).toBeDefined();
    expect(check({ origin: "https://mail.example.com.evil.example" })).toBeDefined();
    expect(check({ origin: `https://${"a".repeat(5000)}.example` })).toBeDefined();
  });

  it("accepts the Host the request was sent to when the public URL differs (another name, PORT=0)", () => {
    expect(check({ origin: "http://127.0.0.1:3000", host: "127.0.0.1:3000" })).toBeUndefined();
    expect(check({ origin: "http://127.0.0.1:3001", host: "127.0.0.1:3000" })).toBeDefined();
    expect(check({ origin: "http://127.0.0.1:3000", host: null })).toBeDefined();
  });

  it("compares origins, not strings", () => {
    expect(check({ origin: "HTTPS://Mail.Example.com", host: null })).toBeUndefined();
    expect(check({ origin: "https://mail.example.com:443", host: null })).toBeUndefined();
    expect(check({ origin: "https://mail.example.com", host: null, allowedOrigins: ["https://mail.example.com/dashboard/"] })).toBeUndefined();
    expect(check({ origin: "https://mail.example.com", host: null, allowedOrigins: ["not a url"] })).toBeDefined();
  });
});

describe("requestCrossSiteRefusal", () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name] ?? null;
  const own = ["https://mail.example.com"];

  it("compares the Origin with X-Forwarded-Host only behind a trusted proxy", () => {
    const viaProxy = headers({ origin: "https://alias.example.com", host: "10.0.0.5:3000", "x-forwarded-host": "alias.example.com, evil.example" });
    expect(requestCrossSiteRefusal(viaProxy, { trustProxyHops: 1, allowedOrigins: own })).toBeUndefined();
    expect(requestCrossSiteRefusal(viaProxy, { trustProxyHops: 0, allowedOrigins: own })).toMatch(/^Refused/);
  });

  it("refuses a server action posted from another site, whatever Host it names", () => {
    expect(requestCrossSiteRefusal(headers({ origin: "https://evil.example", host: "mail.example.com" }), { trustProxyHops: 0, allowedOrigins: own })).toMatch(/^Refused/);
    expect(requestCrossSiteRefusal(headers({ "sec-fetch-site": "cross-site", host: "mail.example.com" }), { trustProxyHops: 0, allowedOrigins: own })).toMatch(/^Refused/);
    expect(requestCrossSiteRefusal(headers({ origin: "https://mail.example.com", "sec-fetch-site": "same-origin" }), { trustProxyHops: 0, allowedOrigins: own })).toBeUndefined();
  });
});
