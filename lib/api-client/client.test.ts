import { describe, expect, it } from "vitest";
import { ApiRequestError, ApiUnavailableError, createApiClient } from "./client";

interface Seen {
  url: string;
  init: RequestInit;
}

/** A fetch that answers from a list, in order, and records what it was asked. */
function fakeFetch(answers: (() => Response)[]) {
  const seen: Seen[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    seen.push({ url, init });
    const next = answers.shift();
    if (!next) throw new Error("no more answers");
    return next();
  }) as unknown as typeof globalThis.fetch;
  return { fetch, seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => () => new Response(JSON.stringify(body), { status, headers });
const client = (answers: (() => Response)[], retriesOn429?: number) => {
  const f = fakeFetch(answers);
  return { api: createApiClient({ baseUrl: "http://api.test//", apiKey: "k", fetch: f.fetch, retriesOn429 }), seen: f.seen };
};

describe("createApiClient", () => {
  it("calls /api/v1 of the base URL with the key, and returns the body the contract parses", async () => {
    const { api, seen } = client([json(200, { Webhooks: [] })]);
    expect(api.baseUrl).toBe("http://api.test");
    await expect(api.listWebhooks()).resolves.toEqual({ Webhooks: [] });
    expect(seen[0]).toMatchObject({ url: "http://api.test/api/v1/webhooks", init: { method: "GET", headers: { Authorization: "Bearer k" } } });
  });

  it("tries a 429 again after its Retry-After, as many times as allowed", async () => {
    const busy = json(429, { Errors: [{ Code: 16, Message: "Too many" }] }, { "Retry-After": "0.05" });
    const { api, seen } = client([busy, json(200, { Webhooks: [] })]);
    await expect(api.listWebhooks()).resolves.toEqual({ Webhooks: [] });
    expect(seen).toHaveLength(2);
    const once = client([busy, busy], 1);
    await expect(once.api.listWebhooks()).rejects.toMatchObject({ status: 429, errors: [{ Code: 16 }] });
  });

  it("answers undefined for a 404 where the endpoint allows it, else throws the envelope's errors", async () => {
    const notFound = json(404, { Errors: [{ Code: 404, Message: "Not found" }] });
    await expect(client([notFound]).api.getTemplate(9)).resolves.toBeUndefined();
    const err = await client([notFound]).api.getEmailSchedule("m/1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiRequestError);
    expect(err).toMatchObject({ status: 404, path: "/email/m%2F1", errors: [{ Code: 404 }] });
  });

  it("takes a 2xx body that does not match the contract, or no answer, for an unavailable API", async () => {
    await expect(client([json(200, { Nope: true })]).api.listWebhooks()).rejects.toBeInstanceOf(ApiUnavailableError);
    await expect(client([]).api.listWebhooks()).rejects.toThrow(/did not answer \(no more answers\)/);
  });

  it("refuses a template id that is not a positive integer as a rejected promise, before any request", async () => {
    const { api, seen } = client([]);
    await expect(api.getTemplate(0)).rejects.toBeInstanceOf(RangeError);
    expect(seen).toHaveLength(0);
  });

  it("sends a render's version only when one is given", async () => {
    const rendered = json(200, { Subject: "s", HtmlBody: null, TextBody: "t" });
    const { api, seen } = client([rendered, rendered]);
    await api.renderTemplate(3, { a: 1 }).catch(() => undefined);
    await api.renderTemplate(3, { a: 1 }, 2).catch(() => undefined);
    expect(seen.map((s) => JSON.parse(String(s.init.body)))).toEqual([{ TemplateModel: { a: 1 } }, { TemplateModel: { a: 1 }, TemplateVersion: 2 }]);
    expect(seen[0]!.url).toBe("http://api.test/api/v1/templates/3/render");
  });

  it("reads the deliverability endpoints: reputation and DMARC sources are undefined on a server without them", async () => {
    const notFound = json(404, { Errors: [{ Code: 404, Message: "Not found" }] });
    const { api, seen } = client([json(200, { Domains: [] }), notFound, notFound]);
    await expect(api.listDomains()).resolves.toEqual({ Domains: [] });
    await expect(api.getReputation()).resolves.toBeUndefined();
    await expect(api.getDmarcSources("mail.example.com", 30)).resolves.toBeUndefined();
    expect(seen.map((s) => s.url)).toEqual([
      "http://api.test/api/v1/domains",
      "http://api.test/api/v1/reputation",
      "http://api.test/api/v1/domains/mail.example.com/dmarc?Days=30",
    ]);
  });
});
