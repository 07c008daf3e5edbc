import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeDns, type FakeDns } from "../../test/support/fake-dns";
import { parseServer, tlsaLookupOn } from "./tlsa-lookup";

let dns: FakeDns;
beforeAll(async () => {
  dns = await startFakeDns({ ttl: 300 });
});
afterAll(() => dns.stop());

const digest = (n: number) => Buffer.alloc(32, n);

describe("TLSA lookups with the resolver's DNSSEC verdict", () => {
  it("returns the records and secure when the answer has the AD bit", async () => {
    dns.set("_25._tcp.mx.signed.test", { TLSA: [{ usage: 3, selector: 1, matchingType: 1, certificate: digest(1) }], authenticated: true });
    const answer = await tlsaLookupOn([dns.address])("mx.signed.test");
    expect(answer).toEqual({ secure: true, rcode: "NOERROR", records: [{ usage: 3, selector: 1, matchingType: 1, data: digest(1) }], ttl: 300 });
    expect(dns.questions.at(-1)).toEqual({ name: "_25._tcp.mx.signed.test", type: "TLSA", transport: "udp" });
  });

  it("says insecure without the AD bit, and NXDOMAIN for an unknown name", async () => {
    dns.set("_25._tcp.mx.plain.test", { TLSA: [{ usage: 3, selector: 1, matchingType: 1, certificate: digest(2) }] });
    expect((await tlsaLookupOn([dns.address])("mx.plain.test")).secure).toBe(false);
    expect(await tlsaLookupOn([dns.address])("mx.unknown.test")).toMatchObject({ rcode: "NXDOMAIN", records: [] });
  });

  it("asks again over TCP when the UDP answer is truncated", async () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ usage: 3, selector: 1, matchingType: 1, certificate: digest(i) }));
    dns.set("_25._tcp.mx.many.test", { TLSA: many, authenticated: true });
    const answer = await tlsaLookupOn([dns.address])("mx.many.test");
    expect(answer.records).toHaveLength(12);
    expect(dns.questions.filter((q) => q.name === "_25._tcp.mx.many.test").map((q) => q.transport)).toEqual(["udp", "tcp"]);
  });

  it("fails within its timeout when the server never answers", async () => {
    const started = Date.now();
    await expect(tlsaLookupOn(["127.0.0.1:9"], 200)("mx.signed.test")).rejects.toThrow(/no answer|ECONNREFUSED|ICMP/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("reads server addresses with and without ports", () => {
    expect(parseServer("127.0.0.1:5353")).toEqual({ host: "127.0.0.1", port: 5353 });
    expect(parseServer("10.0.0.1")).toEqual({ host: "10.0.0.1", port: 53 });
    expect(parseServer("[::1]:5300")).toEqual({ host: "::1", port: 5300 });
    expect(parseServer("::1")).toEqual({ host: "::1", port: 53 });
  });
});
