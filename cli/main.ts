/**
 * The `mailroom` command for operators (docs/cli.md). Runs on the same
 * database as the server, whether or not the server is running. Handlers are
 * thin: parse, call lib/domain, print (cli/output.ts).
 */
import { Command, CommanderError } from "commander";
import { registerAccounts } from "./commands/accounts";
import { registerDomains } from "./commands/domains";
import { registerEgress } from "./commands/egress";
import { registerInbound } from "./commands/inbound";
import { registerKeys } from "./commands/keys";
import { registerMcp } from "./commands/mcp";
import { registerPlans } from "./commands/plans";
import { registerQueue } from "./commands/queue";
import { registerSmtpTest } from "./commands/smtp-test";
import { registerSuppressions } from "./commands/suppressions";
import { registerTemplates } from "./commands/templates";
import { registerTlsReports } from "./commands/tls-reports";
import { registerUsers } from "./commands/users";
import { registerWorker } from "./commands/worker";
import { databaseFaultOf } from "../lib/storage/unavailable";
import { createCliApp } from "./runner";

export function buildProgram(): Command {
  const app = createCliApp();
  const program = new Command("mailroom")
    .description(
      "Mailroom operator commands. Uses DATABASE_URL, else the embedded PostgreSQL in MAILROOM_DATA_DIR (default ./.data).",
    )
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  registerAccounts(program, app);
  registerKeys(program, app);
  registerDomains(program, app);
  registerPlans(program);
  registerUsers(program, app);
  registerSuppressions(program, app);
  registerTemplates(program, app);
  registerWorker(program, app);
  registerSmtpTest(program, app);
  registerMcp(program, app);
  registerInbound(program, app);
  registerQueue(program, app);
  registerTlsReports(program, app);
  registerEgress(program, app);
  return program;
}

/** One line on stderr, no stack: what went wrong and, where we know, what to do. */
export function errorLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // A database outage is said plainly first, the driver's words after it.
  const fault = databaseFaultOf(err);
  if (fault === "disk-full") return `the database's disk is full (${oneLine(message)}): free space in the data directory (or the database server's disk) and try again`;
  if (fault === "unavailable") return `the database is unavailable (${oneLine(message)}): check that it is running and try again`;
  return oneLine(message);
}

function oneLine(message: string): string {
  return message
    .replace(/:\s*\n\s*/g, ": ")
    .replace(/\s*\n\s*/g, "; ")
    .replace(/^error:\s*/i, "");
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (err) {
    // Commander has printed its own message (unknown option, --help, ...).
    if (err instanceof CommanderError) return err.exitCode;
    process.stderr.write(`error: ${errorLine(err)}\n`);
    return 1;
  }
}
