import { describe, expect, it } from "vitest";
import { isValidEmail, parseAddress, parseAddressString } from "./addresses";

describe("isValidEmail (CONTRACT.md address rules)", () => {
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
