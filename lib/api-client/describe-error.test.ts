import { describe, expect, it } from "vitest";
import { ApiRequestError } from "./client";
import { describeApiError } from "./describe-error";

describe("describeApiError", () => {
  it("says that the disk is full on the API's code 507", () => {
    const err = new ApiRequestError(503, [{ Code: 507, Message: "Service unavailable: the server's disk is full" }], "/api/v1/email");
    expect(describeApiError(err)).toMatch(/^The server's disk is full: nothing new can be stored until space is freed/);
  });
  it("names the key's scope when the dashboard's key may not do something", () => {
    const message = "API key scope does not allow this request: this key's scope is read, the request needs a send or full key";
    const err = new ApiRequestError(403, [{ Code: 403, Message: message }], "/api/v1/email");
    expect(describeApiError(err)).toBe(`The dashboard's API key may not do this (${message}). Set MAILROOM_API_KEY to a full key, or unset it to use the provisioned key.`);
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
