import { describe, expect, it } from "vitest";
import { MAX_RECORD_LENGTH, parseStsRecord, stsRecordOf } from "./mta-sts-record";

describe("the _mta-sts TXT record (RFC 8461 §3.1)", () => {
  it("reads the id of a valid record, with or without spaces and a final semicolon", () => {
    expect(parseStsRecord("v=STSv1; id=20160831085700Z;")).toEqual({ id: "20160831085700Z" });
    expect(parseStsRecord("v=STSv1;id=abc")).toEqual({ id: "abc" });
    expect(parseStsRecord("v=STSv1; id=abc; ext=1")).toEqual({ id: "abc" });
  });

  it("refuses a record without an id, with a bad id, or not starting with the version", () => {
    expect(parseStsRecord("v=STSv1;")).toBeUndefined();
    expect(parseStsRecord("v=STSv1; id=")).toBeUndefined();
    expect(parseStsRecord("v=STSv1; id=has-dash")).toBeUndefined();
    expect(parseStsRecord(`v=STSv1; id=${"a".repeat(33)}`)).toBeUndefined();
    expect(parseStsRecord("id=abc; v=STSv1")).toBeUndefined();
    expect(parseStsRecord("v=STSv2; id=abc")).toBeUndefined();
    expect(parseStsRecord("v=STSv1; id=a; id=b")).toBeUndefined();
    expect(parseStsRecord("v=STSv1; garbage")).toBeUndefined();
  });

  it("refuses a record over the length bound before parsing it", () => {
    expect(parseStsRecord(`v=STSv1; id=abc; x=${"y".repeat(MAX_RECORD_LENGTH)}`)).toBeUndefined();
  });

  it("takes exactly one STSv1 record among a domain's TXT records, its character strings joined", () => {
    expect(stsRecordOf([["v=spf1 -all"], ["v=STSv1; ", "id=abc"]])).toEqual({ id: "abc" });
    expect(stsRecordOf([["v=STSv1; id=a"], ["v=STSv1; id=b"]])).toBeUndefined();
    expect(stsRecordOf([["v=spf1 -all"]])).toBeUndefined();
  });
});
