import { describe, expect, it } from "vitest";
import { candidateMatches, normaliseMatch, parseAddress, pickRoute } from "./route-match";

describe("inbound route matching", () => {
  const routes = [
    { id: 1, match: "*@in.example.com" },
    { id: 2, match: "support@in.example.com" },
    { id: 3, match: "vip+gold@in.example.com" },
  ];

  it("prefers an exact route over the domain's", () => {
    expect(pickRoute(routes, "Support@IN.example.com")).toEqual({ route: routes[1], mailboxHash: "" });
    expect(pickRoute(routes, "anyone@in.example.com")).toEqual({ route: routes[0], mailboxHash: "" });
  });

  it("matches local+tag to the route of local and reports the tag as MailboxHash", () => {
    expect(pickRoute(routes, "support+ticket-42@in.example.com")).toEqual({ route: routes[1], mailboxHash: "ticket-42" });
    expect(pickRoute(routes, "other+x@in.example.com")).toEqual({ route: routes[0], mailboxHash: "x" });
    // A route for the tagged address itself takes it whole.
    expect(pickRoute(routes, "vip+gold@in.example.com")).toEqual({ route: routes[2], mailboxHash: "" });
  });

  it("keeps the tag's case and splits at the first +", () => {
    expect(parseAddress("a+B+c@Ex.ORG")).toEqual({ local: "a+b+c", base: "a", tag: "B+c", domain: "ex.org" });
  });

  it("matches nothing for other domains, subdomains or malformed addresses", () => {
    expect(pickRoute(routes, "support@example.com")).toBeUndefined();
    expect(pickRoute(routes, "support@sub.in.example.com")).toBeUndefined();
    expect(pickRoute(routes, "no-at-sign")).toBeUndefined();
    expect(pickRoute(routes, "@in.example.com")).toBeUndefined();
    expect(pickRoute(routes, `${"a".repeat(400)}@in.example.com`)).toBeUndefined();
    expect(candidateMatches("x@")).toEqual([]);
  });

  it("normalises a Match: exact or *@domain, lowercase, IDN in ASCII", () => {
    expect(normaliseMatch("Support@In.Example.com")).toEqual({ kind: "exact", match: "support@in.example.com", domain: "in.example.com" });
    expect(normaliseMatch("*@bücher.example")).toEqual({ kind: "domain", match: "*@xn--bcher-kva.example", domain: "xn--bcher-kva.example" });
    for (const bad of ["", "*", "*@", "*@*.example.com", "a*@example.com", "example.com", "a@b", "a@b@c.com", "*@localhost"]) {
      expect(normaliseMatch(bad), bad).toBeUndefined();
    }
  });
});
