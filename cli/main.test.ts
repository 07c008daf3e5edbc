import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../lib/config";
import { buildProgram, errorLine } from "./main";

describe("errorLine", () => {
  it("turns a multi-line configuration error into one line", () => {
    const err = new ConfigError("Invalid configuration:\n  PORT: expected number\n  HOST: required");
    expect(errorLine(err)).toBe("Invalid configuration: PORT: expected number; HOST: required");
  });
  it("keeps a one-line message as it is", () => {
    expect(errorLine(new Error('Unknown plan "gold"'))).toBe('Unknown plan "gold"');
  });
  it("says plainly that the database's disk is full", () => {
    const err = new Error("Failed query: insert into users", {
      cause: Object.assign(new Error('could not extend file "base/16384/2619": No space left on device'), { code: "53100" }),
    });
    expect(errorLine(err)).toMatch(/^the database's disk is full \(Failed query: insert into users\): free space in the data directory/);
  });
  it("says that the database is unavailable", () => {
    const err = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:54329"), { code: "ECONNREFUSED" });
    expect(errorLine(err)).toBe("the database is unavailable (connect ECONNREFUSED 127.0.0.1:54329): check that it is running and try again");
  });
});

describe("the command tree", () => {
  it("has every command of docs/cli.md, each leaf with --json", () => {
    const program = buildProgram();
    // Leaves at any depth (`inbound routes add`), named by their path.
    type Cmd = (typeof program.commands)[number];
    const leavesOf = (c: Cmd, prefix: string): (readonly [string, Cmd])[] =>
      c.commands.length ? c.commands.flatMap((sub) => leavesOf(sub, `${prefix}${c.name()} `)) : [[`${prefix}${c.name()}`, c] as const];
    const leaves = program.commands.flatMap((group) => leavesOf(group, ""));
    expect(leaves.map(([name]) => name).sort()).toEqual(
      [
        "accounts activate",
        "accounts create",
        "accounts list",
        "accounts resume",
        "accounts rotate-signing-key",
        "accounts set-daily-ceiling",
        "accounts set-default",
        "accounts set-guardrails",
        "accounts set-limits",
        "accounts show",
        "accounts suspend",
        "domains add",
        "domains delete",
        "domains list",
        "domains rotate-dkim",
        "domains tracking",
        "domains verify",
        "egress add",
        "egress assign",
        "egress list",
        "egress remove",
        "inbound routes add",
        "inbound routes list",
        "inbound routes remove",
        "keys create",
        "keys list",
        "keys revoke",
        "mcp",
        "plans",
        "queue bounce",
        "queue list",
        "queue resume",
        "queue retry-now",
        "queue suspend",
        "smtp-test",
        "suppressions add",
        "suppressions list",
        "suppressions remove",
        "templates list",
        "templates show",
        "tls-reports list",
        "tls-reports send",
        "users add",
        "users grant",
        "users list",
        "users remove",
        "users revoke",
        "users set-owner",
        "users set-password",
        "users set-role",
        "users sign-out-everywhere",
        "worker",
      ].sort(),
    );
    const doc = readFileSync(path.resolve(import.meta.dirname, "../docs/cli.md"), "utf8");
    for (const [name, command] of leaves) {
      expect(doc, `docs/cli.md documents "${name}"`).toContain(name);
      // Long-running servers: their output is a protocol or a log, not a result.
      if (name === "worker" || name === "mcp") continue;
      expect(command.options.map((o) => o.long), name).toContain("--json");
    }
  });
});
