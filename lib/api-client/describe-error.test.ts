import { describe, expect, it } from "vitest";
import { ApiRequestError } from "./client";
import { describeApiError } from "./describe-error";

describe("describeApiError", () => {
  it("says that the disk is full on the API's code 507", () => {
    const err = new ApiRequestError(503, [{ Code: 507, Message: "Service unavailable: the server's disk is full" }], "/api/v1/email");
    expect(describeApiError(err)).toMatch(/^The server's disk is full: nothing new can be stored until space is freed/);
  });
  it("says that the database is unavailable on a 503", () => {
    const err = new ApiRequestError(503, [{ Code: 503, Message: "Service unavailable" }], "/api/v1/events");
    expect(describeApiError(err)).toMatch(/^The database is unavailable for a moment/);
  });
  it("says that the disk is full when a domain call fails on it", () => {
    const err = Object.assign(new Error('could not write to file "pg_wal/x": No space left on device'), { code: "53100" });
    expect(describeApiError(err)).toMatch(/^The server's disk is full/);
  });
  it("keeps other errors' words", () => {
    expect(describeApiError(new Error("fetch failed"))).toBe("fetch failed. Check that the API is running and try again.");
  });
});
