import { InvalidArgumentError, type Command } from "commander";
import { getConfig, type Config } from "../lib/config";
import { withDatabase, type CliContext } from "./database";
import type { OutputOptions } from "./output";

/**
 * What every command group gets: a way to run work on the database. The
 * configuration is read when a command runs (so `--help` works with any
 * environment).
 */
export interface CliApp {
  config(): Config;
  run<T>(work: (cli: CliContext) => Promise<T>): Promise<T>;
}

export function createCliApp(): CliApp {
  return {
    config: getConfig,
    run: (work) => withDatabase(getConfig(), work),
  };
}

/** Adds `--json` to a command (every command has it). */
export function withJson(command: Command): Command {
  return command.option("--json", "print the result as JSON");
}

export type JsonOptions = OutputOptions;

/** Parses a whole number ≥ 0 for an option, or fails with a message naming it. */
export function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError("expected a whole number ≥ 0.");
  return Number(value);
}
