import type { Command } from "commander";
import { addSuppression, listSuppressions, removeSuppression, SUPPRESSION_REASONS, type SuppressionRow } from "../../lib/domain/accounts/suppressions";
import type { SuppressionReason } from "../../lib/storage/schema";
import { CliError, emit, formatTime, table } from "../output";
import { resolveAccount } from "../resolve-account";
import { wholeNumber, withJson, type CliApp, type JsonOptions } from "../runner";

type AccountOption = JsonOptions & { account?: string };

function suppressionJson(s: SuppressionRow) {
  return {
    accountId: s.accountId,
    email: s.email,
    reason: s.reason,
    detail: s.detail,
    messageId: s.messageId,
    createdAt: s.createdAt.toISOString(),
  };
}

function requireEmail(email: string): string {
  if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) throw new CliError(`"${email}" is not an email address`);
  return email;
}

export function registerSuppressions(program: Command, app: CliApp): void {
  const suppressions = program.command("suppressions").description("an account's suppression list: list, add, remove");
  const accountOption = ["--account <account>", "account id or name (default: the default account)"] as const;

  withJson(suppressions.command("list"))
    .description("list suppressed addresses")
    .option(...accountOption)
    .option("--search <text>", "only addresses containing this text")
    .option("--limit <n>", "at most this many rows", wholeNumber, 100)
    .option("--offset <n>", "skip this many rows", wholeNumber, 0)
    .action((opts: AccountOption & { search?: string; limit: number; offset: number }) =>
      app.run(async ({ database }) => {
        const account = await resolveAccount(database, opts.account);
        const rows = await listSuppressions(database, account.id, { search: opts.search, limit: opts.limit, offset: opts.offset });
        emit(opts, rows.map(suppressionJson), () =>
          table(
            ["EMAIL", "REASON", "SINCE", "DETAIL"],
            rows.map((s) => [s.email, s.reason, formatTime(s.createdAt), s.detail || "-"]),
            `No suppressed addresses in ${account.name}${opts.search ? ` matching "${opts.search}"` : ""}`,
          ),
        );
      }),
    );

  withJson(suppressions.command("add"))
    .description("suppress an address: POST /email drops it (code 14 when no recipient remains)")
    .argument("<email>", "the address")
    .option(...accountOption)
    .option("--reason <reason>", `one of ${SUPPRESSION_REASONS.join(", ")}`, "manual")
    .option("--detail <text>", "a note kept with the entry", "")
    .action((email: string, opts: AccountOption & { reason: string; detail: string }) =>
      app.run(async ({ database }) => {
        if (!(SUPPRESSION_REASONS as string[]).includes(opts.reason)) {
          throw new CliError(`Unknown reason "${opts.reason}": use ${SUPPRESSION_REASONS.join(", ")}`);
        }
        const account = await resolveAccount(database, opts.account);
        const added = await addSuppression(database, {
          accountId: account.id,
          email: requireEmail(email),
          reason: opts.reason as SuppressionReason,
          detail: opts.detail,
        });
        const normalized = email.trim().toLowerCase();
        emit(opts, { accountId: account.id, email: normalized, added }, () =>
          added ? `Suppressed ${normalized} in ${account.name}` : `${normalized} was already suppressed in ${account.name}`,
        );
      }),
    );

  withJson(suppressions.command("remove"))
    .description("remove an address from the suppression list")
    .argument("<email>", "the address")
    .option(...accountOption)
    .action((email: string, opts: AccountOption) =>
      app.run(async ({ database }) => {
        const account = await resolveAccount(database, opts.account);
        const removed = await removeSuppression(database, account.id, email);
        if (!removed) throw new CliError(`${email.trim().toLowerCase()} is not on the suppression list of ${account.name}`);
        emit(opts, { accountId: account.id, email: email.trim().toLowerCase(), removed }, () =>
          `Removed ${email.trim().toLowerCase()} from the suppression list of ${account.name}`,
        );
      }),
    );
}
