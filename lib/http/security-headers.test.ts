import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { HTML_CSP, securityHeaders } from "./security-headers";

function app() {
  const a = new Hono();
  a.use("*", securityHeaders());
  a.get("/page", (c) => c.html("<p>hi</p>"));
  a.get("/upper", () => new Response("<p>x</p>", { headers: { "Content-Type": "TEXT/HTML; charset=utf-8" } }));
  a.get("/json", (c) => c.json({ ok: true }));
  a.get("/redirect", () => Response.redirect("https://example.org/", 302)); // immutable headers
  a.get("/boom", () => {
    throw new Error("defect");
  });
  a.onError(() => new Response("<h1>error</h1>", { status: 500, headers: { "Content-Type": "text/html" } }));
  return a;
}

describe("securityHeaders", () => {
  it("puts CSP, framing and referrer rules on every text/html response", async () => {
    for (const path of ["/page", "/upper", "/boom"]) {
      const res = await app().request(path);
      expect(res.headers.get("content-security-policy"), path).toBe(HTML_CSP);
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
    expect(HTML_CSP).toContain("default-src 'none'");
    expect(HTML_CSP).toContain("frame-ancestors 'none'");
    expect(HTML_CSP).toContain("form-action 'self'");
    expect(HTML_CSP).not.toMatch(/script-src/);
  });

  it("gives other responses nosniff only, even with immutable headers", async () => {
    for (const path of ["/json", "/redirect"]) {
      const res = await app().request(path);
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(res.headers.get("content-security-policy")).toBeNull();
    }
    expect((await app().request("/redirect")).headers.get("location")).toBe("https://example.org/");
  });
});
