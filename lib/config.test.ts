import { describe, expect, it } from "vitest";
import { buildConfig, ConfigError, parseSpaceThreshold } from "./config";

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

describe("parseSpaceThreshold", () => {
  it.each([
    ["1GB", { bytes: 1024 ** 3 }],
    ["256MB", { bytes: 256 * 1024 ** 2 }],
    ["256 mib", { bytes: 256 * 1024 ** 2 }],
    ["1.5G", { bytes: 1.5 * 1024 ** 3 }],
    ["1048576", { bytes: 1048576 }],
    ["0", { bytes: 0 }],
    ["5%", { percent: 5 }],
    ["100%", { percent: 100 }],
  ])("%s", (text, expected) => {
    expect(parseSpaceThreshold(text)).toEqual(expected);
  });

  it.each(["", "-1GB", "1 PB", "101%", "GB", "1e9", "1GB free"])("refuses %j", (text) => {
    expect(parseSpaceThreshold(text)).toBeUndefined();
  });
});

describe("disk settings", () => {
  it("watch the data directory with the embedded server, and with DATABASE_URL only when MAILROOM_DATA_DIR is set", () => {
    expect(buildConfig({ MAILROOM_DATA_DIR: "/srv/mailroom" }).disk.dir).toBe("/srv/mailroom");
    expect(buildConfig({}).disk.dir).toMatch(/\.data$/);
    expect(buildConfig({ DATABASE_URL: "postgres://db/mailroom" }).disk.dir).toBeUndefined();
    expect(buildConfig({ DATABASE_URL: "postgres://db/mailroom", MAILROOM_DATA_DIR: "/srv/m" }).disk.dir).toBe("/srv/m");
  });

  it("default to 1 GB and 256 MB, and name a bad value", () => {
    expect(buildConfig({}).disk).toMatchObject({ warnFree: { bytes: 1024 ** 3 }, minFree: { bytes: 256 * 1024 ** 2 }, checkIntervalMs: 5000 });
    expect(() => buildConfig({ MAILROOM_DISK_MIN_FREE: "lots" })).toThrow(ConfigError);
    expect(() => buildConfig({ MAILROOM_DISK_MIN_FREE: "lots" })).toThrow(/MAILROOM_DISK_MIN_FREE/);
  });
});

describe("MAILROOM_READ_DATABASE_URL", () => {
  it("is off by default (an empty value too), and carries its lag limit and check interval when set", () => {
    expect(buildConfig({}).readReplica).toBeUndefined();
    expect(buildConfig({ MAILROOM_READ_DATABASE_URL: "" }).readReplica).toBeUndefined();
    const url = "postgres://mailroom@replica.internal:5432/mailroom";
    expect(buildConfig({ MAILROOM_READ_DATABASE_URL: url }).readReplica).toEqual({ url, maxLagMs: 30_000, checkIntervalMs: 250 });
    expect(buildConfig({ MAILROOM_READ_DATABASE_URL: url, MAILROOM_READ_MAX_LAG: "5s", MAILROOM_READ_CHECK_INTERVAL: "100ms" }).readReplica).toMatchObject({ maxLagMs: 5000, checkIntervalMs: 100 });
    expect(() => buildConfig({ MAILROOM_READ_DATABASE_URL: "not a url" })).toThrow(ConfigError);
    expect(() => buildConfig({ MAILROOM_READ_DATABASE_URL: url, MAILROOM_READ_MAX_LAG: "0" })).toThrow(ConfigError);
    expect(() => buildConfig({ MAILROOM_READ_DATABASE_URL: url, MAILROOM_READ_CHECK_INTERVAL: "2m" })).toThrow(ConfigError);
  });
});

describe("MAILROOM_DB_QUERY_TIMEOUT", () => {
  it("is 60 s by default, 0 waits for ever, and a bad value is named", () => {
    expect(buildConfig({}).dbQueryTimeoutMs).toBe(60_000);
    expect(buildConfig({ MAILROOM_DB_QUERY_TIMEOUT: "5s" }).dbQueryTimeoutMs).toBe(5000);
    expect(buildConfig({ MAILROOM_DB_QUERY_TIMEOUT: "0" }).dbQueryTimeoutMs).toBe(0);
    expect(() => buildConfig({ MAILROOM_DB_QUERY_TIMEOUT: "soon" })).toThrow(/MAILROOM_DB_QUERY_TIMEOUT/);
  });
});
