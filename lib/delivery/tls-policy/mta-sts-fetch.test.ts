import type { ServerResponse } from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCa } from "../../../test/support/test-ca";
import { fetchStsPolicy, MAX_POLICY_BYTES, type PolicyFetchOptions } from "./mta-sts-fetch";

/** The policy fetch against a real HTTPS server on loopback, trusted through a test CA, serving good and hostile answers. */
let server: https.Server;
let options: PolicyFetchOptions;
let untrusted: PolicyFetchOptions;
const handlers = new Map<string, (res: ServerResponse) => void>();

beforeAll(async () => {
  const ca = await createTestCa();
  const names = ["good", "redirect", "html", "huge", "endless", "slow", "missing", "declared"].map((n) => `mta-sts.${n}.test`);
  const cert = await ca.issue(names);
  server = https.createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    const handler = handlers.get((req.headers.host ?? "").split(":")[0]!);
    if (!handler || req.url !== "/.well-known/mta-sts.txt") return void res.writeHead(404).end();
    handler(res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const base = { resolve4: async () => ["127.0.0.1"], port, timeoutMs: 1500, allowPrivate: true };
  options = { ...base, ca: [...tls.rootCertificates, ca.caPem.toString()] };
  untrusted = { ...base };
  handlers.set("mta-sts.good.test", (res) => res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("version: STSv1\n"));
  handlers.set("mta-sts.redirect.test", (res) => res.writeHead(301, { location: "https://elsewhere.test/" }).end());
  handlers.set("mta-sts.html.test", (res) => res.writeHead(200, { "content-type": "text/html" }).end("<p>"));
  handlers.set("mta-sts.huge.test", (res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(Buffer.alloc(MAX_POLICY_BYTES * 4, 0x61));
  });
  handlers.set("mta-sts.declared.test", (res) => res.writeHead(200, { "content-type": "text/plain", "content-length": String(10 * 1024 * 1024) }).write("x"));
  handlers.set("mta-sts.endless.test", (res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    const timer = setInterval(() => res.write(Buffer.alloc(4096, 0x61)), 1);
    res.on("close", () => clearInterval(timer));
  });
  handlers.set("mta-sts.slow.test", () => {}); // never answers
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe("fetching an MTA-STS policy (RFC 8461 §3.3)", () => {
  it("reads a policy served as text/plain over a trusted certificate", async () => {
    expect(await fetchStsPolicy("good.test", options)).toEqual({ ok: true, text: "version: STSv1\n" });
  });

  it("refuses a certificate no trusted root issued (sts-webpki-invalid)", async () => {
    expect(await fetchStsPolicy("good.test", untrusted)).toMatchObject({ ok: false, webpki: true, reason: expect.stringContaining("certificate not valid") });
  });

  it("follows no redirect, and takes only text/plain", async () => {
    expect(await fetchStsPolicy("redirect.test", options)).toMatchObject({ ok: false, webpki: false, reason: expect.stringContaining("redirects are not followed") });
    expect(await fetchStsPolicy("html.test", options)).toMatchObject({ ok: false, reason: expect.stringContaining('"text/html", not text/plain') });
    expect(await fetchStsPolicy("missing.test", options)).toMatchObject({ ok: false, reason: expect.stringContaining("HTTP 404") });
  });

  it("stops reading at 64 KB, declared or not, and an endless body within the bound", async () => {
    expect(await fetchStsPolicy("declared.test", options)).toMatchObject({ ok: false, reason: expect.stringContaining("over 65536") });
    expect(await fetchStsPolicy("huge.test", options)).toMatchObject({ ok: false, reason: expect.stringContaining("over 65536 bytes") });
    const started = Date.now();
    expect(await fetchStsPolicy("endless.test", options)).toMatchObject({ ok: false, reason: expect.stringContaining("over 65536 bytes") });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("gives up on a server that never answers within its time", async () => {
    const started = Date.now();
    expect(await fetchStsPolicy("slow.test", options)).toMatchObject({ ok: false, reason: expect.stringContaining("within 1500 ms") });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("connects to no address the SSRF guard refuses", async () => {
    expect(await fetchStsPolicy("good.test", { ...options, allowPrivate: false })).toMatchObject({ ok: false, reason: expect.stringContaining("refused addresses (127.0.0.1)") });
  });
});
