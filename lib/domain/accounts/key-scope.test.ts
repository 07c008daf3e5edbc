import { describe, expect, it } from "vitest";
import { API_KEY_SCOPES, type ApiKeyScope } from "../../contract/api-keys";
import { DomainError } from "../shared/domain-error";
import { keyMaySendFrom, keyMaySendTemplates, normalizeKeySenderDomains, requiredScope, scopeAllows, scopeMaySubmit, scopeRefusal } from "./key-scope";

describe("requiredScope (docs/contract.md §17.2)", () => {
  const table: [method: string, path: string, needed: ApiKeyScope][] = [
    ["POST", "/email", "send"],
    ["POST", "/email/", "send"],
    ["POST", "/email/batch", "send"],
    ["PATCH", "/email/:id", "send"],
    ["PATCH", "/email/0b8f3c1e-1111-4222-8333-944455556666", "send"],
    ["POST", "/email/:id/cancel", "send"],
    ["DELETE", "/email/:id", "send"],
    ["GET", "/email/:id", "read"],
    ["GET", "/events", "read"],
    ["HEAD", "/events", "read"],
    ["get", "/stats", "read"],
    ["GET", "/webhooks", "read"],
    ["GET", "/webhooks/:id/deliveries", "read"],
    ["GET", "/suppressions", "read"],
    ["POST", "/webhooks", "full"],
    ["DELETE", "/webhooks/:id", "full"],
    ["POST", "/webhooks/:id/replay", "full"],
    ["POST", "/suppressions", "full"],
    ["DELETE", "/suppressions/:email", "full"],
    ["POST", "/emails", "full"],
    ["POST", "/templates", "full"],
    ["GET", "/domains/:domain", "read"],
    ["GET", "/domains/:domain/dmarc", "full"],
    ["GET", "/domains/example.com/DMARC", "full"],
  ];
  it.each(table)("%s %s needs %s", (method, path, needed) => {
    expect(requiredScope(method, path)).toBe(needed);
  });

  it("full allows everything, send and read only their own kind", () => {
    const allowed = (key: ApiKeyScope) => API_KEY_SCOPES.filter((needed) => scopeAllows(key, needed));
    expect(allowed("full")).toEqual(["full", "send", "read"]);
    expect(allowed("send")).toEqual(["send"]);
    expect(allowed("read")).toEqual(["read"]);
    expect(API_KEY_SCOPES.filter(scopeMaySubmit)).toEqual(["full", "send"]);
  });

  it("names the key's scope and the one needed", () => {
    expect(scopeRefusal("read", "send")).toMatch(/scope is read.*send or full key/);
    expect(scopeRefusal("send", "full")).toMatch(/scope is send.*a full key/);
  });
});

describe("sender domains of a key", () => {
  it("no list allows every domain; a list allows its domains in any case and their Unicode form", () => {
    expect(keyMaySendFrom(null, "anything.example")).toBe(true);
    const list = normalizeKeySenderDomains(["B.example.", " a.example", "bücher.example"]);
    expect(list).toEqual(["a.example", "b.example", "xn--bcher-kva.example"]);
    expect(keyMaySendFrom(list, "A.Example")).toBe(true);
    expect(keyMaySendFrom(list, "bücher.example")).toBe(true);
    expect(keyMaySendFrom(list, "c.example")).toBe(false);
    expect(keyMaySendFrom(list, "sub.a.example")).toBe(false);
  });

  it("a key limited to sender domains sends no template unless its scope reads them (full)", () => {
    expect(keyMaySendTemplates("send", null)).toBe(true);
    expect(keyMaySendTemplates("full", null)).toBe(true);
    expect(keyMaySendTemplates("send", ["a.example"])).toBe(false);
    expect(keyMaySendTemplates("full", ["a.example"])).toBe(true);
  });

  it("refuses what is not a domain name, and an empty list", () => {
    expect(() => normalizeKeySenderDomains(["not a domain"])).toThrow(DomainError);
    expect(() => normalizeKeySenderDomains(["localhost"])).toThrow(DomainError);
    expect(() => normalizeKeySenderDomains(["", " "])).toThrow(DomainError);
    expect(() => normalizeKeySenderDomains(Array.from({ length: 51 }, (_, i) => `d${i}.example`))).toThrow(DomainError);
  });
});
