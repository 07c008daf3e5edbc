import type { Command } from "commander";
import { isUuid } from "../../lib/domain/accounts";
import { createApiKey, listApiKeys, revokeApiKey } from "../../lib/domain/api-keys";
import { CliError, emit, formatTime, table } from "../output";
import { resolveAccount } from "../resolve-account";
import { withJson, type CliApp, type JsonOptions } from "../runner";

type AccountOption = JsonOptions & { account?: string };

export function registerKeys(program: Command, app: CliApp): void {
  const keys = program.command("keys").description("API keys: create, list, revoke");
  const accountOption = ["--account <account>", "account id or name (default: the default account)"] as const;

  withJson(keys.command("create"))
    .description("create an API key (shown once)")
    .option(...accountOption)
    .option("--label <text>", "what the key is for", "")
    .action((opts: AccountOption & { label: string }) =>
      app.run(async ({ db }) => {
        const account = await resolveAccount(db, opts.account);
        const { key, apiKey } = await createApiKey(db, account.id, opts.label);
        emit(
          opts,
          { apiKey, id: key.id, accountId: key.accountId, label: key.label, prefix: key.prefix, createdAt: key.createdAt.toISOString() },
          () => [`Created API key ${key.id} for ${account.name}. Shown once, keep it now:`, `  ${apiKey}`],
        );
      }),
    );

  withJson(keys.command("list"))
    .description("list an account's API keys (prefixes only; keys are stored hashed)")
    .option(...accountOption)
    .action((opts: AccountOption) =>
      app.run(async ({ db }) => {
        const account = await resolveAccount(db, opts.account);
        const rows = await listApiKeys(db, account.id);
        emit(
          opts,
          rows.map((k) => ({
            id: k.id,
            accountId: k.accountId,
            label: k.label,
            prefix: k.prefix,
            status: k.revokedAt ? "revoked" : "active",
            createdAt: k.createdAt.toISOString(),
            lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
            revokedAt: k.revokedAt?.toISOString() ?? null,
          })),
          () =>
            table(
              ["ID", "PREFIX", "LABEL", "STATUS", "CREATED", "LAST USED"],
              rows.map((k) => [k.id, `${k.prefix}…`, k.label, k.revokedAt ? "revoked" : "active", formatTime(k.createdAt), formatTime(k.lastUsedAt)]),
            ),
        );
      }),
    );

  withJson(keys.command("revoke"))
    .description("revoke an API key: requests with it answer code 13 (within 5 s in every process)")
    .argument("<keyId>", "key id (from `mailroom keys list`)")
    .action((keyId: string, opts: JsonOptions) =>
      app.run(async ({ db }) => {
        if (!isUuid(keyId) || !(await revokeApiKey(db, keyId))) throw new CliError(`No active API key with id ${keyId}`);
        emit(opts, { id: keyId, status: "revoked" }, () => `Revoked API key ${keyId}`);
      }),
    );
}
