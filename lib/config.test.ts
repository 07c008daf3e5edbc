import { describe, expect, it } from "vitest";
import { buildConfig, ConfigError, parseSpaceThreshold } from "./config";

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
