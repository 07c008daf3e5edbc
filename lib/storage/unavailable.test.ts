import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "./unavailable";

describe("isDatabaseUnavailable", () => {
  it.each([
    [Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })],
    [Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" })],
    [Object.assign(new Error("the database system is starting up"), { code: "57P03" })],
    [new Error("Connection terminated unexpectedly")],
    [new Error("timeout exceeded when trying to connect")],
    [new Error("Failed query", { cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }) })],
  ])("treats %s as unavailable", (err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    [Object.assign(new Error('duplicate key value violates unique constraint "x"'), { code: "23505" })],
    [Object.assign(new Error("syntax error"), { code: "42601" })],
    [new TypeError("Cannot read properties of undefined")],
    [undefined],
  ])("treats %s as a defect, not an outage", (err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});
