import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents, parseRetryAfter, postJson } from "./http-post";
import type { Resolver } from "./ssrf-guard";

describe("postJson", () => {
  let server: http.Server;
  let port: number;
  const seen: { host: string; path: string; body: string; authorization?: string }[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen.push({ host: req.headers.host ?? "", path: req.url ?? "", body, authorization: req.headers.authorization });
        if (req.url === "/redirect") {
          res.writeHead(302, { Location: "/elsewhere" }).end("moved");
        } else if (req.url === "/slow-body") {
          res.writeHead(200);
          res.write("partial");
        } else if (req.url === "/busy") {
          // 6,000 bytes of two-byte characters: the excerpt ends on a whole character.
          res.writeHead(429, { "Retry-After": "7" }).end("é".repeat(3000));
        } else if (req.url === "/hang") {
          // never answers
        } else {
          res.writeHead(201).end("created");
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const opts = { timeoutMs: 500, allowPrivate: true };

  it("posts the body and reports status, answer and duration", async () => {
    const r = await postJson(`http://127.0.0.1:${port}/ok?x=1`, '{"a":1}', { "content-type": "application/json" }, opts);
    expect(r).toMatchObject({ statusCode: 201, body: "created" });
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect(seen.at(-1)).toMatchObject({ path: "/ok?x=1", body: '{"a":1}' });
  });

  it("sends the URL's user and password as Basic authentication", async () => {
    await postJson(`http://hook%40user:s%3Acret@127.0.0.1:${port}/auth`, "{}", {}, opts);
    expect(seen.at(-1)!.authorization).toBe(`Basic ${Buffer.from("hook@user:s:cret").toString("base64")}`);
  });

  it("does not follow redirects", async () => {
    const before = seen.length;
    const r = await postJson(`http://127.0.0.1:${port}/redirect`, "{}", {}, opts);
    expect(r).toMatchObject({ statusCode: 302, body: "moved" });
    expect(seen.length).toBe(before + 1);
  });

  it("connects to the address the guard checked, with the URL's host name, without a second lookup", async () => {
    let lookups = 0;
    const resolver: Resolver = async (host) => {
      lookups++;
      expect(host).toBe("hooks.customer.test");
      return [{ address: "127.0.0.1", family: 4 }];
    };
    const agents = createAgents(4);
    const r = await postJson(`http://hooks.customer.test:${port}/pinned`, "{}", {}, { ...opts, resolver, agents });
    expect(r.statusCode).toBe(201);
    expect(seen.at(-1)!.host).toBe(`hooks.customer.test:${port}`);
    expect(lookups).toBe(1);
    agents.http.destroy();
  });

  it("tries every checked address of a name, as for localhost resolving to ::1 and 127.0.0.1", async () => {
    const resolver: Resolver = async () => [
      { address: "::1", family: 6 },
      { address: "127.0.0.1", family: 4 },
    ];
    // The server listens on 127.0.0.1 only: ::1 is refused, 127.0.0.1 answers.
    const r = await postJson(`http://dual.test:${port}/dual`, "{}", {}, { ...opts, resolver });
    expect(r.statusCode).toBe(201);
    expect(seen.at(-1)!.path).toBe("/dual");
  });

  it("refuses an internal destination before connecting when private addresses are not allowed", async () => {
    const before = seen.length;
    const r = await postJson(`http://127.0.0.1:${port}/ok`, "{}", {}, { ...opts, allowPrivate: false });
    expect(r.statusCode).toBe(0);
    expect(r.error).toMatch(/destination refused/);
    expect(seen.length).toBe(before);
  });

  it("times out a receiver that never answers, and keeps a status whose body never ends", async () => {
    const hang = await postJson(`http://127.0.0.1:${port}/hang`, "{}", {}, opts);
    expect(hang.statusCode).toBe(0);
    expect(hang.error).toMatch(/timed out after 500 ms/);
    expect(hang.durationMs).toBeGreaterThanOrEqual(450);
    const slow = await postJson(`http://127.0.0.1:${port}/slow-body`, "{}", {}, opts);
    expect(slow).toMatchObject({ statusCode: 200, body: "partial" });
  });

  it("keeps the first 4 KB of the answer for the log, 1,000 characters for the record, and a 429's Retry-After", async () => {
    const r = await postJson(`http://127.0.0.1:${port}/busy`, "{}", {}, opts);
    expect(r.statusCode).toBe(429);
    expect(r.retryAfterMs).toBe(7000);
    expect(r.body).toBe("é".repeat(1000));
    expect(r.bodyExcerpt).toBe("é".repeat(2048));
  });
});

describe("parseRetryAfter", () => {
  it("reads delay-seconds and HTTP dates, and nothing else", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-5", now)).toBeUndefined();
  });
});
