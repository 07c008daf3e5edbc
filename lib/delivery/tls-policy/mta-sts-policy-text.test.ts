import { describe, expect, it } from "vitest";
import { isMxPattern, mxMatches, parseStsPolicy } from "./mta-sts-policy-text";

const policy = (lines: string[], eol = "\r\n") => lines.join(eol) + eol;

describe("the MTA-STS policy file (RFC 8461 §3.2)", () => {
  it("reads mode, max_age and the mx patterns, CRLF or LF, unknown keys ignored", () => {
    const text = policy(["version: STSv1", "mode: enforce", "mx: mail.example.com", "mx: *.Example.NET.", "max_age: 604800", "future: yes"]);
    expect(parseStsPolicy(text)).toEqual({
      ok: true,
      policy: { mode: "enforce", maxAgeSeconds: 604800, mx: ["mail.example.com", "*.example.net"], lines: text.split("\r\n").filter((l) => l) },
    });
    const lf = parseStsPolicy(policy(["version: STSv1", "mode: testing", "mx: a.example", "max_age: 86400"], "\n"));
    expect(lf.ok && lf.policy.mode).toBe("testing");
  });

  it("accepts mode none without mx lines", () => {
    const r = parseStsPolicy(policy(["version: STSv1", "mode: none", "max_age: 86400"]));
    expect(r.ok && r.policy.mode).toBe("none");
  });

  it.each([
    [["mode: enforce", "mx: a.example", "max_age: 1"], /version is missing/],
    [["version: STSv2", "mode: enforce", "mx: a.example", "max_age: 1"], /not STSv1/],
    [["version: STSv1", "mode: strict", "mx: a.example", "max_age: 1"], /mode is "strict"/],
    [["version: STSv1", "mode: enforce", "mx: a.example"], /max_age/],
    [["version: STSv1", "mode: enforce", "mx: a.example", "max_age: -1"], /max_age/],
    [["version: STSv1", "mode: enforce", "mx: a.example", "max_age: 31557601"], /over/],
    [["version: STSv1", "mode: enforce", "max_age: 1"], /no mx line/],
    [["version: STSv1", "mode: enforce", "mx: bad host!", "max_age: 1"], /mx line/],
    [["version: STSv1", "not a key value line"], /without "key: value"/],
  ])("refuses %j", (lines, reason) => {
    const r = parseStsPolicy(policy(lines));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(reason);
  });
});

describe("MX patterns (RFC 8461 §4.1)", () => {
  it("matches a host exactly, or one label left of a wildcard's suffix", () => {
    expect(mxMatches("mail.example.com", "mail.example.com")).toBe(true);
    expect(mxMatches("MAIL.example.com.", "mail.example.com")).toBe(true);
    expect(mxMatches("mx1.example.com", "*.example.com")).toBe(true);
    expect(mxMatches("a.mx1.example.com", "*.example.com")).toBe(false);
    expect(mxMatches("example.com", "*.example.com")).toBe(false);
    expect(mxMatches("evil-example.com", "*.example.com")).toBe(false);
    expect(mxMatches("mail.example.org", "mail.example.com")).toBe(false);
  });

  it("knows a pattern from a non-host", () => {
    expect(isMxPattern("*.example.com")).toBe(true);
    expect(isMxPattern("mx_1.example.com")).toBe(true);
    expect(isMxPattern("*")).toBe(false);
    expect(isMxPattern("a..b")).toBe(false);
    expect(isMxPattern(`${"a".repeat(64)}.com`)).toBe(false);
    expect(isMxPattern("a.*.com")).toBe(false);
  });
});
