import { describe, expect, it } from "vitest";
import { cachedResolver } from "./dns-answer-cache";

const code = (c: string) => Object.assign(new Error(c), { code: c });

function fakeResolver() {
  const asked: string[] = [];
  const answers = new Map<string, () => Promise<string[][]>>();
  const resolve = (name: string, rrtype: string) => {
    asked.push(`${rrtype} ${name}`);
    return (answers.get(`${rrtype} ${name}`) ?? (() => Promise.reject(code("ENOTFOUND"))))();
  };
  return { asked, answers, resolve };
}

describe("cachedResolver", () => {
  it("asks once for questions asked at the same time, and shares the answer", async () => {
    const dns = fakeResolver();
    dns.answers.set("TXT example.org", async () => [["v=spf1 -all"]]);
    const resolve = cachedResolver(dns.resolve);
    const answers = await Promise.all(Array.from({ length: 16 }, () => resolve("example.org", "TXT")));
    expect(answers.every((a) => a[0]![0] === "v=spf1 -all")).toBe(true);
    expect(dns.asked).toEqual(["TXT example.org"]);
  });

  it("keeps an answer for its time, then asks again; names are case-insensitive, types are not", async () => {
    let clock = 0;
    const dns = fakeResolver();
    dns.answers.set("TXT example.org", async () => [["one"]]);
    const resolve = cachedResolver(dns.resolve, { ttlMs: 1000, now: () => clock });
    await resolve("example.org", "TXT");
    clock = 999;
    await resolve("EXAMPLE.org", "TXT");
    expect(dns.asked).toHaveLength(1);
    await resolve("example.org", "MX").catch(() => undefined);
    expect(dns.asked).toHaveLength(2);
    clock = 1001;
    dns.answers.set("TXT example.org", async () => [["two"]]);
    expect(await resolve("example.org", "TXT")).toEqual([["two"]]);
    expect(dns.asked).toHaveLength(3);
  });

  it("keeps 'no such name' and 'no such record' as answers, the same error each time", async () => {
    const dns = fakeResolver();
    dns.answers.set("TXT _dmarc.example.org", () => Promise.reject(code("ENODATA")));
    const resolve = cachedResolver(dns.resolve);
    const first = await resolve("_dmarc.example.org", "TXT").catch((e: Error) => e);
    const second = await resolve("_dmarc.example.org", "TXT").catch((e: Error) => e);
    expect((first as { code?: string }).code).toBe("ENODATA");
    expect(second).toBe(first);
    await resolve("gone.example", "TXT").catch(() => undefined);
    await resolve("gone.example", "TXT").catch(() => undefined);
    expect(dns.asked).toEqual(["TXT _dmarc.example.org", "TXT gone.example"]);
  });

  it("does not keep a failure: a timeout or SERVFAIL is asked again", async () => {
    const dns = fakeResolver();
    let calls = 0;
    dns.answers.set("TXT flaky.example", () => (++calls === 1 ? Promise.reject(code("ETIMEOUT")) : Promise.resolve([["ok"]])));
    const resolve = cachedResolver(dns.resolve);
    await expect(resolve("flaky.example", "TXT")).rejects.toMatchObject({ code: "ETIMEOUT" });
    expect(await resolve("flaky.example", "TXT")).toEqual([["ok"]]);
    expect(calls).toBe(2);
  });

  it("holds at most maxEntries questions, forgetting the oldest", async () => {
    const dns = fakeResolver();
    for (const n of ["a", "b", "c"]) dns.answers.set(`TXT ${n}.example`, async () => [[n]]);
    const resolve = cachedResolver(dns.resolve, { maxEntries: 2 });
    for (const n of ["a", "b", "c"]) await resolve(`${n}.example`, "TXT");
    await resolve("c.example", "TXT");
    await resolve("b.example", "TXT");
    expect(dns.asked).toHaveLength(3);
    await resolve("a.example", "TXT");
    expect(dns.asked).toEqual(["TXT a.example", "TXT b.example", "TXT c.example", "TXT a.example"]);
  });
});
