import { describe, expect, it } from "vitest";
import { databaseFaultOf, DiskSpaceLowError, isDatabaseUnavailable, isDiskFull } from "./unavailable";

describe("isDatabaseUnavailable", () => {
  it.each([
    [Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })],
    [Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" })],
    [Object.assign(new Error("the database system is starting up"), { code: "57P03" })],
    [new Error("Connection terminated unexpectedly")],
    [new Error("timeout exceeded when trying to connect")],
    [new Error("Failed query", { cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }) })],
    [new Error("Cannot use a pool after calling end on the pool")],
    // pg's query timeout: a server that keeps the connection open but does not answer.
    [new Error("Query read timeout")],
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

describe("databaseFaultOf", () => {
  const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: "ERROR" });

  it.each([
    [pgError("53100", 'could not write to file "pg_wal/xlogtemp.123": No space left on device')],
    [pgError("53100", "could not extend file \"base/16384/16385\": wrote only 4096 of 8192 bytes at block 12")],
    [Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28 })],
    // drizzle wraps the driver's error: the cause says it
    [new Error("Failed query: insert into messages ...", { cause: pgError("53100", "could not extend file") })],
    // a PANIC's text reaches the client without a code when the backend dies with it
    [new Error('PANIC:  could not write to file "pg_wal/xlogtemp.61": No space left on device')],
    [new DiskSpaceLowError(10, 20)],
  ])("treats %s as a full disk", (err) => {
    expect(databaseFaultOf(err)).toBe("disk-full");
    expect(isDiskFull(err)).toBe(true);
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    [pgError("53000", "insufficient resources")],
    [pgError("53200", "out of memory")],
    [pgError("53300", "sorry, too many clients already")],
    [pgError("57P02", "terminating connection because of crash of another server process")],
    [new Error("server closed the connection unexpectedly")],
  ])("treats %s as unavailable, not a full disk", (err) => {
    expect(databaseFaultOf(err)).toBe("unavailable");
  });

  it("prefers a full disk named in a cause over the lost connection around it", () => {
    const err = Object.assign(new Error("Connection terminated unexpectedly"), { cause: pgError("53100", "No space left on device") });
    expect(databaseFaultOf(err)).toBe("disk-full");
  });

  it.each([
    [pgError("54000", "row is too big")],
    [pgError("23505", "duplicate key")],
    ["a string with No space left on device in it"],
    [null],
    [{ cause: { cause: { cause: { cause: { cause: { cause: { code: "53100" } } } } } } }],
  ])("does not treat %s as an outage", (err) => {
    expect(databaseFaultOf(err)).toBeUndefined();
  });
});
