import { describe, expect, it } from "vitest";
import { safeReturnPath } from "./safe-return";

describe("safeReturnPath", () => {
  it("keeps a path of this app with its query", () => {
    expect(safeReturnPath("/events?Event=opened")).toBe("/events?Event=opened");
  });
  it("reduces an absolute URL to its path", () => {
    expect(safeReturnPath("http://127.0.0.1:3000/messages/abc")).toBe("/messages/abc");
  });
  it("refuses other hosts, protocol-relative and odd paths", () => {
    expect(safeReturnPath("//evil.test/x")).toBe("/");
    expect(safeReturnPath("/\\evil.test")).toBe("/");
    expect(safeReturnPath("javascript:alert(1)")).toBe("/");
    expect(safeReturnPath("/login?x=1")).toBe("/");
    expect(safeReturnPath(undefined, "/events")).toBe("/events");
  });
});
