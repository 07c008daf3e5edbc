import { describe, expect, it } from "vitest";
import { buildConfig } from "../config";
import { defaultApiBaseUrl } from "./index";

describe("defaultApiBaseUrl", () => {
  it("is this process on loopback unless MAILROOM_API_URL says otherwise", () => {
    expect(defaultApiBaseUrl(buildConfig({ PORT: "3000" }))).toBe("http://127.0.0.1:3000");
    expect(defaultApiBaseUrl(buildConfig({ PORT: "8080", HOST: "0.0.0.0" }))).toBe("http://127.0.0.1:8080");
    expect(defaultApiBaseUrl(buildConfig({ PORT: "8080", HOST: "::1" }))).toBe("http://[::1]:8080");
    expect(defaultApiBaseUrl(buildConfig({ MAILROOM_API_URL: "https://mail.example.com" }))).toBe("https://mail.example.com");
  });
});
