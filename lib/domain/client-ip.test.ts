import { describe, expect, it } from "vitest";
import { CLIENT_ADDRESS_HEADER, clientIp, isPublicIp, requestClientIp } from "./client-ip";

describe("clientIp", () => {
  it("uses the socket address unless the proxy is trusted", () => {
    expect(clientIp("::ffff:127.0.0.1", "8.8.8.8", false)).toBe("127.0.0.1");
    expect(clientIp("127.0.0.1", "8.8.8.8", true)).toBe("8.8.8.8");
  });
  it("takes the first untrusted hop from the right", () => {
    expect(clientIp("10.0.0.2", "1.2.3.4, 81.2.69.142, 10.0.0.1", true)).toBe("81.2.69.142");
    expect(clientIp("10.0.0.2", "10.0.0.9, 192.168.1.1", true)).toBe("10.0.0.9");
    expect(clientIp("10.0.0.2", "garbage", true)).toBe("10.0.0.2");
  });
  it("knows private addresses", () => {
    expect(isPublicIp("192.168.1.1")).toBe(false);
    expect(isPublicIp("::1")).toBe(false);
    expect(isPublicIp("81.2.69.142")).toBe(true);
  });
});

describe("requestClientIp", () => {
  it("reads the address server.ts put in its own header, and X-Forwarded-For only behind a trusted proxy", () => {
    const h = new Headers({ [CLIENT_ADDRESS_HEADER]: "::ffff:10.0.0.2", "x-forwarded-for": "81.2.69.142" });
    expect(requestClientIp(h, false)).toBe("10.0.0.2");
    expect(requestClientIp(h, true)).toBe("81.2.69.142");
    expect(requestClientIp(new Headers({ "x-forwarded-for": "81.2.69.142" }), false)).toBe("");
    expect(requestClientIp(undefined, false)).toBe("");
  });
});
