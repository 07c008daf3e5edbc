import { describe, expect, it } from "vitest";
import { buildConfig, ConfigError } from "./config";

describe("MAILROOM_TRUST_PROXY", () => {
  it("is a number of proxy hops; true is 1 and false is 0", () => {
    const hops = (value?: string) => buildConfig(value === undefined ? {} : { MAILROOM_TRUST_PROXY: value }).trustProxyHops;
    expect(hops()).toBe(0);
    expect(hops("false")).toBe(0);
    expect(hops("0")).toBe(0);
    expect(hops("true")).toBe(1);
    expect(hops("TRUE")).toBe(1);
    expect(hops("yes")).toBe(1);
    expect(hops("1")).toBe(1);
    expect(hops("2")).toBe(2);
    expect(hops("10")).toBe(10);
    for (const bad of ["11", "-1", "1.5", "two", "0x1", "1e1"]) expect(() => hops(bad), bad).toThrow(ConfigError);
  });
});

describe("SMTP submission limits", () => {
  it("default to 10 sessions per address and a 30 s AUTH deadline", () => {
    const { submission } = buildConfig({});
    expect(submission.connectionsPerAddress).toBe(10);
    expect(submission.authTimeoutMs).toBe(30_000);
    const set = buildConfig({ MAILROOM_SUBMISSION_CONNECTIONS_PER_ADDRESS: "3", MAILROOM_SUBMISSION_AUTH_TIMEOUT: "5s" }).submission;
    expect(set).toMatchObject({ connectionsPerAddress: 3, authTimeoutMs: 5000 });
    expect(() => buildConfig({ MAILROOM_SUBMISSION_CONNECTIONS_PER_ADDRESS: "0" })).toThrow(ConfigError);
    expect(() => buildConfig({ MAILROOM_SUBMISSION_AUTH_TIMEOUT: "soon" })).toThrow(ConfigError);
  });
});
