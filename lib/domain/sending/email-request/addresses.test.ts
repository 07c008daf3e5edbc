import { describe, expect, it } from "vitest";
import { MAX_ADDRESS_LENGTH, parseAddress, parseAddressString } from "./addresses";
import { isValidEmail } from "../../../contract/text";

describe("isValidEmail (docs/contract.md §5.17)", () => {
  it.each([
    ["a@b.test", true],
    ["first.last+tag@sub.example.com", true],
    ["o'brien@example.ie", true],
    ["用户@例子.广告", true],
    ["josé@exämple.de", true],
    ["a@xn--bcher-kva.example", true],
    [`${"a".repeat(64)}@example.com`, true],
    [`${"a".repeat(65)}@example.com`, false],
    [`${"é".repeat(33)}@example.com`, false], // 66 octets
    [`a@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.${"e".repeat(60)}`, true], // 254 octets
    [`a@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.${"e".repeat(61)}`, false], // 255
    [`a@${"b".repeat(64)}.com`, false],
    ["", false],
    ["plain", false],
    ["@example.com", false],
    ["a@", false],
    ["a@@example.com", false],
    ["a@b@example.com", false],
    ["a@localhost", false],
    ["a@-b.com", false],
    ["a@b-.com", false],
    ["a@b..com", false],
    ["a@.b.com", false],
    [".a@b.com", false],
    ["a.@b.com", false],
    ["a..b@c.com", false],
    ["a b@c.com", false],
    ["a@b.com\r\nBcc: x@y.z", false],
    ['"quoted"@b.com', false],
    ["a@[127.0.0.1]", false],
    ["a(comment)@b.com", false],
  ])("%s → %s", (email, valid) => {
    expect(isValidEmail(email)).toBe(valid);
  });
});

describe("parseAddressString", () => {
  it.each([
    ["a@b.test", { name: "", email: "a@b.test" }],
    ["  a@b.test  ", { name: "", email: "a@b.test" }],
    ["Ann <a@b.test>", { name: "Ann", email: "a@b.test" }],
    ['"Smith, Ann" <a@b.test>', { name: "Smith, Ann", email: "a@b.test" }],
    ['"A \\"B\\"" <a@b.test>', { name: 'A "B"', email: "a@b.test" }],
    ["<a@b.test>", { name: "", email: "a@b.test" }],
    ["Ann <>", { name: "Ann", email: "" }],
    ["plain", { name: "", email: "plain" }],
    ["a@b.test, c@d.test", { name: "", email: "a@b.test, c@d.test" }],
    ["g: a@b.test;", { name: "", email: "g: a@b.test;" }],
    ["用户 <用户@例子.广告>", { name: "用户", email: "用户@例子.广告" }],
  ])("%s", (text, expected) => {
    expect(parseAddressString(text)).toEqual(expected);
  });
});

describe("parseAddress", () => {
  it("prefers lowercase keys and accepts capitalised ones", () => {
    expect(parseAddress({ Name: "A", Email: "a@b.test" })).toMatchObject({ name: "A", email: "a@b.test", emailState: "ok" });
    expect(parseAddress({ name: null, email: "a@b.test" })).toMatchObject({ name: "", nameUnusable: false });
  });
  it("does not read inherited properties", () => {
    expect(parseAddress(JSON.parse('{"__proto__":{"email":"a@b.test"}}'))).toMatchObject({ emailState: "missing" });
  });
  it("classifies non-addresses", () => {
    for (const v of [1, true, null, [], undefined]) expect(parseAddress(v)).toEqual({ kind: "not-address" });
  });
});

describe("parseAddressString on hostile input", () => {
  // Each worst case at the longest accepted length (998) and far beyond it: the
  // old regex took 43 s on 200,000 spaces. Refusal past the bound is immediate;
  // up to it, addressparser takes well under a millisecond (a generous bound: 100 ms on a shared machine).
  const unit = [" ", "<", "a <", '"', "'", "&#x", "(", "\\", ",", "a@", "@", "<a@b.test>"];
  it.each(unit)("%j repeated: bounded, linear, never throws", (u) => {
    const atBound = `a${u.repeat(Math.floor(996 / u.length))}b`;
    expect(atBound.length).toBeLessThanOrEqual(MAX_ADDRESS_LENGTH);
    let t = performance.now();
    const parsed = parseAddressString(atBound);
    expect(performance.now() - t).toBeLessThan(100);
    expect(typeof parsed.email).toBe("string");
    const huge = `a${u.repeat(Math.ceil(10_000_000 / u.length))}b`;
    t = performance.now();
    expect(parseAddress(huge)).toMatchObject({ kind: "address", emailState: "invalid" });
    // Parsing 10 MB would take seconds; the refusal reads only its length (100 ms: a loaded CI core, once 20 ms too few).
    expect(performance.now() - t).toBeLessThan(100);
  });

  it("refuses over-long names in objects, and strings just over the bound", () => {
    expect(parseAddress({ name: "n".repeat(MAX_ADDRESS_LENGTH), email: "a@b.test" })).toMatchObject({ nameUnusable: false, emailState: "ok" });
    expect(parseAddress({ name: "n".repeat(MAX_ADDRESS_LENGTH + 1), email: "a@b.test" })).toMatchObject({ nameUnusable: true });
    const ok = `${"N".repeat(MAX_ADDRESS_LENGTH - "  <a@b.test>".length)} <a@b.test>`;
    expect(ok.length).toBe(MAX_ADDRESS_LENGTH - 1);
    expect(parseAddress(ok)).toMatchObject({ emailState: "ok", email: "a@b.test" });
    expect(parseAddress(`${ok}  `)).toMatchObject({ emailState: "invalid" });
  });
});
